import { describe, expect, it } from 'vitest';
import { outputTruncationOf } from '../../../main/runtimes/supervisor/output-truncation';
import { ExitedStatusSchema, type ExitedStatus } from '../../../main/runtimes/supervisor/run-status';
import { ExecutionReceiptSchema } from '../../../shared/fork/receipts';

const EXITED_BEFORE_CAP = {
  phase: 'exited',
  supervisor_pid: 10,
  supervisor_start_time: 5,
  started_at: '2026-01-02T03:04:05.000Z',
  runtime_pid: 11,
  runtime_pgid: 11,
  runtime_start_time: 6,
  exit_code: 0,
  signal: null,
  timed_out: false,
  stopped: false,
  spawn_error: null,
  ended_at: '2026-01-02T03:04:06.000Z',
  duration_ms: 1000,
} as const;

const withOutput = (stdoutDropped: number, stderrDropped: number): ExitedStatus => ({
  ...EXITED_BEFORE_CAP,
  output: { cap_bytes: 1024, stdout: { received_bytes: 1024 + stdoutDropped, dropped_bytes: stdoutDropped }, stderr: { received_bytes: 10 + stderrDropped, dropped_bytes: stderrDropped } },
});

describe('output_truncated from the exited record', () => {
  it('states the cap and the dropped bytes when a log lost anything, null when none did or nothing ran', () => {
    expect(outputTruncationOf(withOutput(5, 0))).toEqual({ cap_bytes: 1024, stdout_dropped_bytes: 5, stderr_dropped_bytes: 0 });
    expect(outputTruncationOf(withOutput(0, 7))).toEqual({ cap_bytes: 1024, stdout_dropped_bytes: 0, stderr_dropped_bytes: 7 });
    expect(outputTruncationOf(withOutput(0, 0))).toBeNull();
    expect(outputTruncationOf({ ...EXITED_BEFORE_CAP, spawn_error: 'ENOENT', output: null })).toBeNull();
  });

  it('states nothing for a record written before logs were capped, which still parses', () => {
    const old = ExitedStatusSchema.parse(EXITED_BEFORE_CAP);
    expect(old).not.toHaveProperty('output');
    expect(outputTruncationOf(old)).toBeUndefined();
    expect(ExitedStatusSchema.safeParse({ ...EXITED_BEFORE_CAP, output: { cap_bytes: 0, stdout: {}, stderr: {} } }).success).toBe(false);
  });

  it('is optional in the receipt: absent (older receipts), null, or the counts', () => {
    const fields = ExecutionReceiptSchema.shape.output_truncated;
    expect(fields.safeParse(undefined).success).toBe(true);
    expect(fields.safeParse(null).success).toBe(true);
    expect(fields.safeParse({ cap_bytes: 1, stdout_dropped_bytes: 2, stderr_dropped_bytes: 0 }).success).toBe(true);
    expect(fields.safeParse({ cap_bytes: 1, stdout_dropped_bytes: -1, stderr_dropped_bytes: 0 }).success).toBe(false);
    expect(fields.safeParse({ cap_bytes: 1, stdout_dropped_bytes: 2, stderr_dropped_bytes: 0, trusted: true }).success).toBe(false);
  });
});
