import { readFileSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FinishedRun } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import { FIXTURES_DIR } from '../../unit/runtimes/recorded-run';

export { recordedRun } from '../../unit/runtimes/recorded-run';

/** Where Codex 0.169.0 wrote every recorded rollout: `$CODEX_HOME/sessions/2026/11/29/`. */
const RECORDED_DAY = ['2026', '11', '29'] as const;

/**
 * Puts a recorded Codex rollout (test/fixtures/runtimes/codex/<name>/rollout.jsonl) back under a
 * fresh `$CODEX_HOME` inside scratch, with its recorded file name; returns that CODEX_HOME.
 */
export async function placeRecordedRollout(scratch: string, name: string, recordedFileName: string): Promise<string> {
  const codexHome = path.join(scratch, 'codex-home');
  const dir = path.join(codexHome, 'sessions', ...RECORDED_DAY);
  await mkdir(dir, { recursive: true });
  await copyFile(path.join(FIXTURES_DIR, 'codex', name, 'rollout.jsonl'), path.join(dir, recordedFileName));
  return codexHome;
}

/** The first line of a recorded output cut in half: inside its JSON, as when a process dies while printing. */
export function cutMidJson(text: string): string {
  const firstLine = text.split('\n')[0] ?? '';
  return firstLine.slice(0, Math.floor(firstLine.length / 2));
}

const RECORDINGS_DIR = fileURLToPath(new URL('../../fixtures/recordings/', import.meta.url));

/**
 * A run recorded from a real CLI by test/vendors/recording (test/fixtures/recordings/<runtime>/<name>/),
 * as the supervisor would hand it to an adapter: `exit_code.txt` is a number, or `signal SIGTERM`
 * for a process ended by a signal.
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
