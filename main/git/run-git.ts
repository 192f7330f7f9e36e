import { GitPluginError } from 'simple-git';
import type { SimpleGitOptions } from 'simple-git';
import { gitAt } from './git-at';
import { GitError } from './git-error';

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
}

type TaskResult = Parameters<NonNullable<SimpleGitOptions['errors']>>[1];

/**
 * Runs `git <args>` in `dir` through `gitAt`. Resolves with the raw output when the exit code is
 * one of `okExitCodes`; otherwise throws a GitError carrying args, exit code and output.
 */
export async function runGit(dir: string, args: readonly string[], options: RunGitOptions = {}): Promise<GitRun> {
  const okExitCodes = options.okExitCodes ?? [0];
  // simple-git's error hook is the one place it hands over the exit code and undecoded output; a
  // fresh instance per call keeps what it sees from being mixed with another command's.
  const seen: { result?: TaskResult; rejection?: Error } = {};
  try {
    const git = gitAt(dir, {
      ...(options.env ? { env: options.env } : {}),
      errors: (error, result) => {
        seen.result = result;
        // A timeout or abort arrives as a plugin error, whatever exit code the killed process left.
        if (error instanceof GitPluginError) seen.rejection = error;
        return undefined;
      },
    });
    await git.raw(['--no-pager', ...args]);
  } catch (cause) {
    throw new GitError({ args, exitCode: null, stdout: '', stderr: '' }, errorText(cause), cause);
  }
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

const firstLine = (text: string): string => text.split('\n', 1)[0] ?? '';

const errorText = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause));
