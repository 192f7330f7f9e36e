import type { RunStatus } from '../supervisor/run-status';
import { isProcessGroupAlive, isSameProcessAlive } from '../os-process/process-liveness';
import { readProcStat } from '../os-process/proc-stat';

/** The recorded supervisor still runs (same pid and start time). */
export function isSupervisorAlive(status: RunStatus): boolean {
  return isSameProcessAlive(status.supervisor_pid, status.supervisor_start_time);
}

/**
 * Some process of the recorded runtime's group still runs: the leader itself, or descendants it
 * left in its group. A leader pid now held by a different process means the group id is no longer
 * ours: Linux does not reuse a pid while a group of that id still has members.
 */
export function isRuntimeAlive(status: RunStatus): boolean {
  if (status.runtime_pid === null || status.runtime_pgid === null) return false;
  if (isSameProcessAlive(status.runtime_pid, status.runtime_start_time)) return true;
  const leader = readProcStat(status.runtime_pgid);
  if (leader !== null && leader.startTime !== status.runtime_start_time) return false;
  return isProcessGroupAlive(status.runtime_pgid);
}
