import { devNull } from 'node:os';
import { simpleGit } from 'simple-git';
import type { SimpleGit, SimpleGitOptions } from 'simple-git';

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
    // Read-only verbs (status) must not take index.lock while an agent works in the same tree.
    GIT_OPTIONAL_LOCKS: '0',
    ...extra,
  };
}

export interface GitAtOptions {
  /** Added to the fixed environment (e.g. the Citadel commit identity). */
  readonly env?: Readonly<Record<string, string>>;
  /** simple-git's per-task error hook; run-git.ts uses it to read the exit code and raw output. */
  readonly errors?: SimpleGitOptions['errors'];
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
  }).env(env);
}
