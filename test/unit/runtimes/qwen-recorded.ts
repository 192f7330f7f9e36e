import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FinishedRun } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import { qwenProjectFolder } from '../../../main/runtimes/qwen/session-model';
import { recordingRun } from './recorded-run';

/** The real Qwen Code 0.24.4 recordings (test/fixtures/recordings/README-new-runtimes.md). */
export const QWEN_RECORDINGS = fileURLToPath(new URL('../../fixtures/recordings/qwen/', import.meta.url));

/** A recorded Qwen Code run as the supervisor would hand it to an adapter. */
export const recordedQwenRun = (name: string, overrides: Partial<FinishedRun> = {}): FinishedRun => recordingRun('qwen', name, overrides);

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
