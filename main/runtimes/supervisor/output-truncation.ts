import type { OutputTruncation } from '../../../shared/fork/receipts';
import type { ExitedStatus } from './run-status';

/**
 * The receipt's output_truncated fact from a run's exited record: the counts when a log lost
 * anything, null when both are whole (or nothing was spawned), undefined when the record predates the cap.
 */
export function outputTruncationOf(status: ExitedStatus): OutputTruncation | null | undefined {
  if (status.output === null) return null;
  if (status.output === undefined) return undefined;
  const { cap_bytes, stdout, stderr } = status.output;
  if (stdout.dropped_bytes === 0 && stderr.dropped_bytes === 0) return null;
  return { cap_bytes, stdout_dropped_bytes: stdout.dropped_bytes, stderr_dropped_bytes: stderr.dropped_bytes };
}
