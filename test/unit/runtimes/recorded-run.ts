import { readFileSync } from 'node:fs';
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
