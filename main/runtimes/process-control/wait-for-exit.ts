import { setTimeout as sleep } from 'node:timers/promises';
import type { ExitedStatus, LostRun } from '../supervisor/run-status';
import { readStatus } from './read-status';
import { isRuntimeAlive, isSupervisorAlive } from './run-liveness';

export interface WaitForExitOptions {
  readonly signal?: AbortSignal;
  readonly pollMs: number;
}

/**
 * Resolves with the exited record, or with `{ phase: 'lost' }` once supervisor and runtime are
 * both gone without one. Rejects with the signal's reason when aborted.
 */
export async function waitForExit(statusFile: string, options: WaitForExitOptions): Promise<ExitedStatus | LostRun> {
  for (;;) {
    options.signal?.throwIfAborted();
    const status = await readStatus(statusFile);
    if (status.phase === 'exited') return status;
    if (!isSupervisorAlive(status) && !isRuntimeAlive(status)) {
      // The supervisor renames its final record into place before it exits, so a second look settles it.
      const last = await readStatus(statusFile);
      return last.phase === 'exited' ? last : { phase: 'lost' };
    }
    await pause(options.pollMs, options.signal);
  }
}

async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, signal === undefined ? {} : { signal });
  } catch (error) {
    // timers/promises rejects with its own AbortError; callers get the reason they aborted with.
    signal?.throwIfAborted();
    throw error;
  }
}
