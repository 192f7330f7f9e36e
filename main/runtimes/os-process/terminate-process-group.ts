import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessGroupAlive } from './process-liveness';

const DEFAULT_POLL_MS = 50;

export interface TerminateOptions {
  /** Time between SIGTERM and SIGKILL. */
  readonly graceMs: number;
  /** How long to keep sending SIGKILL before giving up; Infinity waits until the group is gone. */
  readonly settleMs: number;
  readonly pollMs?: number;
  /** Whether the group still runs and is still ours; asked before every signal. */
  readonly stillAlive?: () => boolean;
}

/**
 * Ends a whole process group: SIGTERM, then SIGKILL once the grace period has passed.
 * Resolves true when nothing in the group runs any more, false when something outlived the settle time.
 */
export async function terminateProcessGroup(pgid: number, options: TerminateOptions): Promise<boolean> {
  const stillAlive = options.stillAlive ?? (() => isProcessGroupAlive(pgid));
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  if (!stillAlive()) return true;
  signalGroup(pgid, 'SIGTERM');
  const killAt = performance.now() + options.graceMs;
  for (let left = options.graceMs; left > 0; left = killAt - performance.now()) {
    await sleep(Math.min(pollMs, left));
    if (!stillAlive()) return true;
  }
  const giveUpAt = performance.now() + options.settleMs;
  while (stillAlive()) {
    if (performance.now() >= giveUpAt) return false;
    // Sent again each round: a member forked while the previous signal was in flight gets the next one.
    signalGroup(pgid, 'SIGKILL');
    await sleep(pollMs);
  }
  return true;
}

/** Never throws: ESRCH means the group is already gone, EPERM that what is left is not ours to signal. */
function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  // Group ids 0 and 1 would address the caller's own group or every process.
  if (!Number.isSafeInteger(pgid) || pgid <= 1) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // The next liveness check tells the caller whether anything is left.
  }
}
