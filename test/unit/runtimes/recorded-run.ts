import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FinishedRun } from '../../../main/runtimes/adapter-contract/runtime-adapter';

export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/runtimes/', import.meta.url));

/** A recorded vendor-CLI run (test/fixtures/runtimes) as the supervisor would hand it to an adapter. */
export function recordedRun(runtime: 'claude' | 'codex', name: string, overrides: Partial<FinishedRun> = {}): FinishedRun {
  const dir = `${FIXTURES_DIR}${runtime}/${name}/`;
  return {
    stdout: readFileSync(`${dir}${runtime === 'claude' ? 'stdout.txt' : 'stdout.jsonl'}`, 'utf8'),
    stderr: readFileSync(`${dir}stderr.txt`, 'utf8'),
    exitCode: Number(readFileSync(`${dir}exit_code.txt`, 'utf8').trim()),
    signal: null,
    worktree: '/nonexistent/worktree',
    env: {},
    ...overrides,
  };
}

const RECORDINGS_DIR = fileURLToPath(new URL('../../fixtures/recordings/', import.meta.url));

/**
 * A run of a real CLI recorded by test/vendors/recording (test/fixtures/recordings/<runtime>/<case>/),
 * as the supervisor would hand it to an adapter; `exit_code.txt` holds a number or `signal <NAME>`.
 */
export function recordingRun(runtime: string, name: string, overrides: Partial<FinishedRun> = {}): FinishedRun {
  const dir = path.join(RECORDINGS_DIR, runtime, name);
  const exit = readFileSync(path.join(dir, 'exit_code.txt'), 'utf8').trim();
  const signal = /^signal (SIG[A-Z0-9]+)$/.exec(exit)?.[1] ?? null;
  return {
    stdout: readFileSync(path.join(dir, 'stdout.jsonl'), 'utf8'),
    stderr: readFileSync(path.join(dir, 'stderr.txt'), 'utf8'),
    exitCode: signal === null ? Number(exit) : null,
    signal,
    worktree: '/nonexistent/worktree',
    env: {},
    ...overrides,
  };
}
