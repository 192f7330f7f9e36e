import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { devNull } from 'node:os';
import { GitPluginError, simpleGit } from 'simple-git';
import type { SimpleGit, SimpleGitOptions } from 'simple-git';
import { CitadelError } from '../../shared/errors';

// Killed when git prints nothing for this long (simple-git's block timeout restarts on output).
const BLOCK_TIMEOUT_MS = 300_000;
// simple-git queues commands per instance. runGit makes one instance per command, so this caps
// only code that drives a gitAt instance itself; the verbs start at most a few commands at once.
const MAX_CONCURRENT_PROCESSES = 4;

/**
 * `-c` settings every git process gets, overriding the repository's own config. Global and system
 * config are not read at all (see `gitEnvironment`), so these guard against `.git/config`.
 * Hooks: `core.hooksPath` names the null device, a path that can hold no hook, so no hook of any
 * kind runs (pre-commit, commit-msg, post-commit, post-checkout, reference-transaction, merge
 * hooks). `--no-verify` would skip only some of them.
 */
const FORCED_CONFIG = [
  `core.hooksPath=${devNull}`,
  'core.fsmonitor=false',
  'commit.gpgSign=false',
  'core.quotePath=true',
  'diff.suppressBlankEmpty=false',
  'rerere.enabled=false',
];

// Copied from the caller's environment when present: git needs PATH to find its helpers, and
// Windows needs SYSTEMROOT to start a process at all. Nothing else is inherited.
const INHERITED = ['PATH', 'HOME', 'SYSTEMROOT'] as const;

/**
 * The whole environment of a git process. Only the fixed variables below plus `extra` reach git:
 * ambient `GIT_DIR`, `GIT_INDEX_FILE`, pagers and editors never do.
 */
export function gitEnvironment(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    ...env,
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
    GIT_ATTR_NOSYSTEM: '1',
    // A replace ref (planted by any earlier uncontained writer) would keep a commit id and swap its content.
    GIT_NO_REPLACE_OBJECTS: '1',
    // Read-only verbs (status) must not take index.lock while an agent works in the same tree.
    GIT_OPTIONAL_LOCKS: '0',
    ...extra,
  };
}

export interface GitAtOptions {
  /** Added to the fixed environment (e.g. the Citadel commit identity). */
  readonly env?: Readonly<Record<string, string>>;
  /** simple-git's per-task error hook; `runGit` uses it to read the exit code and raw output. */
  readonly errors?: SimpleGitOptions['errors'];
  /** Kills the process when signalled (`runGit`'s output limit). */
  readonly abort?: AbortSignal;
}

/** A simple-git instance for `dir`: no prompts, no user config, no hooks, a timeout, no shell. */
export function gitAt(dir: string, options: GitAtOptions = {}): SimpleGit {
  const env = gitEnvironment(options.env);
  return simpleGit({
    baseDir: dir,
    maxConcurrentProcesses: MAX_CONCURRENT_PROCESSES,
    timeout: { block: BLOCK_TIMEOUT_MS },
    config: FORCED_CONFIG,
    // simple-git strips or refuses GIT_* variables it is not told about.
    allowEnvironment: Object.keys(env).filter((name) => name.startsWith('GIT_')),
    // These switches permit exactly the settings above, whose values are fixed in this file:
    // the hooks path and fsmonitor overrides, and GIT_CONFIG_GLOBAL pointing at the null device.
    unsafe: { allowUnsafeHooksPath: true, allowUnsafeFsMonitor: true, allowUnsafeConfigPaths: true },
    ...(options.errors ? { errors: options.errors } : {}),
    ...(options.abort ? { abort: options.abort } : {}),
  }).env(env);
}

/** What one git process did, as far as it got. */
export interface GitOutcome {
  /** The git arguments, without the forced `-c` settings every process gets (see `gitAt`). */
  readonly args: readonly string[];
  /** null when git never reached an exit status: it could not start, timed out, or was refused by simple-git. */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

// Enough to diagnose a failure without copying a whole diff into an error record.
const MAX_OUTPUT_CHARS = 8_192;

const clip = (text: string): string =>
  text.length <= MAX_OUTPUT_CHARS ? text : `${text.slice(0, MAX_OUTPUT_CHARS)}… (${text.length - MAX_OUTPUT_CHARS} more characters)`;

/** A git command that failed. It carries the argv and the output, so nobody has to re-run git to learn why. */
export class GitError extends CitadelError {
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;

  constructor(outcome: GitOutcome, reason: string, cause?: unknown) {
    super('GIT_FAILED', `git ${outcome.args.join(' ')}: ${reason}`, {
      details: { args: [...outcome.args], exit_code: outcome.exitCode, stdout: clip(outcome.stdout), stderr: clip(outcome.stderr) },
      cause,
    });
    this.name = 'GitError';
    this.args = outcome.args;
    this.exitCode = outcome.exitCode;
    this.stdout = outcome.stdout;
    this.stderr = outcome.stderr;
  }
}

/**
 * A repository Citadel owns and names itself: the git dir and work tree come from Citadel's own
 * record, never from a `.git` file in the work tree (which the agent can rewrite).
 */
export interface RepositoryLocation {
  readonly gitDir: string;
  /** null for a bare repository. */
  readonly workTree: string | null;
}

/**
 * What a command on a branch repository (agent-written content) gets on top of FORCED_CONFIG:
 * no submodule recursion (an embedded repository's own config and fsmonitor are never read),
 * no automatic gc or maintenance (which would run further commands), and the system/global
 * attribute files switched off. Filter, diff and merge drivers can only be declared in config;
 * the branch repository's config is Citadel's own and is checked unchanged (its digest, see
 * containment.ts) before any command that reads the index or work tree runs, so no driver exists.
 */
const BRANCH_CONFIG = ['submodule.recurse=false', 'diff.ignoreSubmodules=all', 'status.submoduleSummary=false', 'gc.auto=0', 'maintenance.auto=false', `core.attributesFile=${devNull}`];

/** One finished git process. `stdout` is kept as bytes: diffs of binary files are not text. */
export interface GitRun {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly exitCode: number;
}

export interface RunGitOptions {
  /** Exit codes that are answers rather than failures (e.g. 1 from `merge-base --is-ancestor`). */
  readonly okExitCodes?: readonly number[];
  readonly env?: Readonly<Record<string, string>>;
  /** Kills the process when signalled (a caller's own time limit); it then fails as a GitError. */
  readonly signal?: AbortSignal;
}

/**
 * The most stdout `runGit` holds. Its commands print names, ids and counts, never file contents
 * (those are streamed: `streamGit`); more than this is refused (GIT_OUTPUT_TOO_LARGE), the process
 * killed, rather than buffered.
 */
export const MAX_GIT_OUTPUT_BYTES = 32 * 1024 * 1024;

type TaskResult = Parameters<NonNullable<SimpleGitOptions['errors']>>[1];

/**
 * Runs `git <args>` in `where` through `gitAt`: a directory (git finds its repository as usual, for
 * the operator's repository), or a RepositoryLocation (Citadel's own branch repository: git dir and
 * work tree named explicitly, hardened as BRANCH_CONFIG says). Resolves with the raw output when the exit code is
 * one of `okExitCodes`; otherwise throws a GitError carrying args, exit code and output.
 */
export async function runGit(where: string | RepositoryLocation, args: readonly string[], options: RunGitOptions = {}): Promise<GitRun> {
  const okExitCodes = options.okExitCodes ?? [0];
  const { dir, prefix } = invocation(where);
  const env = options.env;
  // simple-git's error hook is the one place it hands over the exit code and undecoded output; a
  // fresh instance per call keeps what it sees from being mixed with another command's.
  const seen: { result?: TaskResult; rejection?: Error } = {};
  const limit = new AbortController();
  let printed = 0;
  try {
    const git = gitAt(dir, {
      ...(env ? { env } : {}),
      abort: options.signal === undefined ? limit.signal : AbortSignal.any([limit.signal, options.signal]),
      errors: (error, result) => {
        seen.result = result;
        // A timeout or abort arrives as a plugin error, whatever exit code the killed process left.
        if (error instanceof GitPluginError) seen.rejection = error;
        return undefined;
      },
    });
    git.outputHandler((_command, stdout) => {
      stdout.on('data', (chunk: Buffer) => {
        printed += chunk.length;
        if (printed > MAX_GIT_OUTPUT_BYTES) limit.abort();
      });
    });
    await git.raw(['--no-pager', ...prefix, ...args]);
  } catch (cause) {
    if (limit.signal.aborted) throw outputTooLarge(args);
    throw new GitError({ args, exitCode: null, stdout: '', stderr: '' }, errorText(cause), cause);
  }
  if (limit.signal.aborted) throw outputTooLarge(args);
  const { result, rejection } = seen;
  const stdout = Buffer.concat(result?.stdOut ?? []);
  const stderr = Buffer.concat(result?.stdErr ?? []).toString('utf8');
  const exitCode = typeof result?.exitCode === 'number' ? result.exitCode : null;
  if (rejection || exitCode === null || !okExitCodes.includes(exitCode)) {
    const outcome = { args, exitCode: rejection ? null : exitCode, stdout: stdout.toString('utf8'), stderr };
    const reason = rejection ? rejection.message : `exit code ${String(exitCode)}: ${firstLine(stderr)}`;
    throw new GitError(outcome, reason, rejection);
  }
  return { stdout, stderr, exitCode };
}

export interface StreamGitOptions extends RunGitOptions {
  /** Every stdout chunk, in order, as git prints it; nothing of it is kept here. */
  readonly onStdout: (chunk: Buffer) => void;
}

// Enough of stderr to say why a command failed.
const MAX_STREAM_STDERR_BYTES = 64 * 1024;

/**
 * `runGit` for output as large as the files it shows (a patch, a diff): stdout goes to `onStdout`
 * as it arrives and is never held, so memory stays bounded whatever the change holds. Same git,
 * settings, environment and location as `runGit`; killed when it prints nothing for the block timeout.
 */
export async function streamGit(where: string | RepositoryLocation, args: readonly string[], options: StreamGitOptions): Promise<{ exitCode: number; stderr: string }> {
  const okExitCodes = options.okExitCodes ?? [0];
  const { dir, prefix } = invocation(where);
  const argv = [...FORCED_CONFIG.flatMap((setting) => ['-c', setting]), '--no-pager', ...prefix, ...args];
  const outcome = await new Promise<{ exitCode: number | null; stderr: string; error: Error | null }>((resolve) => {
    const child = spawn('git', argv, { cwd: dir, env: gitEnvironment(options.env), stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true });
    let stderr = '';
    let error: Error | null = null;
    let idle: NodeJS.Timeout | undefined;
    const restartIdle = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        error = new Error(`no output for ${BLOCK_TIMEOUT_MS} ms`);
        child.kill('SIGKILL');
      }, BLOCK_TIMEOUT_MS);
    };
    restartIdle();
    child.stdout.on('data', (chunk: Buffer) => {
      restartIdle();
      options.onStdout(chunk);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      restartIdle();
      if (stderr.length < MAX_STREAM_STDERR_BYTES) stderr += chunk.slice(0, MAX_STREAM_STDERR_BYTES - stderr.length);
    });
    child.on('error', (cause) => (error = cause));
    child.on('close', (code) => {
      clearTimeout(idle);
      resolve({ exitCode: code, stderr, error });
    });
  });
  const { exitCode, stderr, error } = outcome;
  if (error !== null || exitCode === null || !okExitCodes.includes(exitCode)) {
    const reason = error !== null ? error.message : `exit code ${String(exitCode)}: ${firstLine(stderr)}`;
    throw new GitError({ args, exitCode: error !== null ? null : exitCode, stdout: '', stderr }, reason, error ?? undefined);
  }
  return { exitCode, stderr };
}

/**
 * Where git runs and the location arguments it gets: in the work tree when there is one, so paths
 * mean the same as for the agent; a work tree that is gone (the recheck must still read the git
 * dir then) leaves the git dir.
 */
function invocation(where: string | RepositoryLocation): { dir: string; prefix: string[] } {
  if (typeof where === 'string') return { dir: where, prefix: [] };
  const dir = where.workTree !== null && existsSync(where.workTree) ? where.workTree : where.gitDir;
  return { dir, prefix: locationArgs(where) };
}

function outputTooLarge(args: readonly string[]): CitadelError {
  return new CitadelError('GIT_OUTPUT_TOO_LARGE', `git ${args.join(' ')} printed more than ${MAX_GIT_OUTPUT_BYTES} bytes`, {
    details: { args: [...args], max_bytes: MAX_GIT_OUTPUT_BYTES },
  });
}

function locationArgs(where: RepositoryLocation): string[] {
  return [
    ...BRANCH_CONFIG.flatMap((setting) => ['-c', setting]),
    '--no-replace-objects',
    `--git-dir=${where.gitDir}`,
    ...(where.workTree === null ? [] : [`--work-tree=${where.workTree}`]),
  ];
}

/** stdout as text without the one line break git ends it with (paths may end in spaces). */
export function stdoutLine(run: GitRun): string {
  const text = run.stdout.toString('utf8');
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** stdout split into the NUL-terminated fields `-z` produces. */
export function stdoutFields(run: GitRun): string[] {
  const text = run.stdout.toString('utf8');
  const fields = text.split('\0');
  if (fields.at(-1) === '') fields.pop();
  return fields;
}

/** The NUL-terminated fields `-z` produces, as bytes: a file name need not be UTF-8. */
export function stdoutByteFields(run: GitRun): Buffer[] {
  const fields: Buffer[] = [];
  for (let start = 0; start < run.stdout.length; ) {
    const end = run.stdout.indexOf(0, start);
    fields.push(run.stdout.subarray(start, end === -1 ? run.stdout.length : end));
    start = end === -1 ? run.stdout.length : end + 1;
  }
  return fields;
}

const firstLine = (text: string): string => text.split('\n', 1)[0] ?? '';

const errorText = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause));
