import { copyFile, mkdir } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FinishedRun } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import { qwenProjectFolder } from '../../../main/runtimes/qwen/session-model';

/** The real Qwen Code 0.24.4 recordings (test/fixtures/recordings/README-new-runtimes.md). */
export const QWEN_RECORDINGS = fileURLToPath(new URL('../../fixtures/recordings/qwen/', import.meta.url));

/**
 * A recorded Qwen Code run as the supervisor would hand it to an adapter: `exit_code.txt` is a number
 * or `signal SIGTERM`/`signal SIGINT` for a run ended by a signal.
 */
export function recordedQwenRun(name: string, overrides: Partial<FinishedRun> = {}): FinishedRun {
  const dir = path.join(QWEN_RECORDINGS, name);
  const exit = readFileSync(path.join(dir, 'exit_code.txt'), 'utf8').trim();
  const signal = /^signal (SIG[A-Z]+)$/.exec(exit)?.[1] ?? null;
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

/**
 * Puts a recorded session file (`home/.qwen/projects/<project>/chats/<session>.jsonl`) back under a
 * fresh QWEN_HOME inside scratch, in the project folder Qwen Code names after `worktree`; returns that QWEN_HOME.
 */
export async function placeRecordedSession(scratch: string, name: string, recordedProject: string, sessionId: string, worktree: string): Promise<string> {
  const qwenHome = path.join(scratch, 'qwen-home');
  const chats = path.join(qwenHome, 'projects', qwenProjectFolder(worktree), 'chats');
  await mkdir(chats, { recursive: true });
  await copyFile(path.join(QWEN_RECORDINGS, name, 'home', '.qwen', 'projects', recordedProject, 'chats', `${sessionId}.jsonl`), path.join(chats, `${sessionId}.jsonl`));
  return qwenHome;
}
