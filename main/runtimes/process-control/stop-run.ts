import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { RunStatus } from '../supervisor/run-status';
import { isRuntimeAlive, isSupervisorAlive } from './run-liveness';
import { terminateProcessGroup } from '../os-process/terminate-process-group';
import { waitForExit } from './wait-for-exit';

/** How long past the grace period a signalled supervisor gets to finish before STOP goes around it. */
const SUPERVISOR_SLACK_MS = 5_000;
/** How long SIGKILL gets to take effect on the direct path. */
const KILL_SETTLE_MS = 5_000;
const POLL_MS = 50;

/**
 * What STOP did. It records nothing: the caller journals this fact and, separately, the branch
 * outcome. `not_launched`: the runtime had not been launched, so STOP was a request the drive
 * acts on (it ends a setup step under way and launches nothing).
 */
export const StopResultSchema = z.strictObject({
  process_gone: z.boolean(),
  via: z.enum(['supervisor', 'direct', 'already_gone', 'not_launched']),
});
export type StopResult = z.infer<typeof StopResultSchema>;

/**
 * STOP as an independent control path (spec/adapters-and-safety.md). A live supervisor is asked
 * (SIGTERM) so that it records `stopped`; a supervisor that is gone, overruns its grace period or
 * has no readable record is bypassed: the runtime's process group is ended directly, and a
 * supervisor that ignored STOP is killed, since a collection would otherwise wait on its record forever.
 */
export async function stopRun(statusFile: string, status: RunStatus, graceMs: number): Promise<StopResult> {
  // The supervisor writes `exited` only once the runtime's whole group is gone.
  if (status.phase === 'exited') return { process_gone: true, via: 'already_gone' };
  if (isSupervisorAlive(status) && signal(status.supervisor_pid, 'SIGTERM') && (await supervisorFinished(statusFile, graceMs))) {
    return { process_gone: true, via: 'supervisor' };
  }
  const runtimeWasAlive = isRuntimeAlive(status);
  const runtimeGone =
    !runtimeWasAlive ||
    (await terminateProcessGroup(status.runtime_pgid, { graceMs, settleMs: KILL_SETTLE_MS, pollMs: POLL_MS, stillAlive: () => isRuntimeAlive(status) }));
  const supervisorGone = await killSupervisor(status);
  return { process_gone: runtimeGone && supervisorGone, via: runtimeWasAlive ? 'direct' : 'already_gone' };
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILL for the recorded supervisor (same pid and start time), then wait for it to be gone. */
async function killSupervisor(status: RunStatus): Promise<boolean> {
  if (!isSupervisorAlive(status)) return true;
  signal(status.supervisor_pid, 'SIGKILL');
  const giveUpAt = performance.now() + KILL_SETTLE_MS;
  while (isSupervisorAlive(status)) {
    if (performance.now() >= giveUpAt) return false;
    await sleep(POLL_MS);
  }
  return true;
}

/** Exited, or lost (supervisor and runtime both gone), within the grace period plus slack. */
async function supervisorFinished(statusFile: string, graceMs: number): Promise<boolean> {
  try {
    await waitForExit(statusFile, { pollMs: POLL_MS, signal: AbortSignal.timeout(graceMs + SUPERVISOR_SLACK_MS) });
    return true;
  } catch {
    return false;
  }
}
