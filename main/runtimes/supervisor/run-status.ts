import { z } from 'zod';

const PidSchema = z.int().positive();
/** Clock ticks since boot (/proc/<pid>/stat field 22); null where the OS does not expose it. */
export const StartTimeSchema = z.int().nonnegative().nullable();
const TimestampSchema = z.iso.datetime();

const supervisorFields = {
  supervisor_pid: PidSchema,
  supervisor_start_time: StartTimeSchema,
  /** When the runtime was spawned (or, after a spawn error, when that was attempted). */
  started_at: TimestampSchema,
};

/** Written by the supervisor once the runtime runs; pid plus start time identify each process across restarts. */
export const RunningStatusSchema = z.strictObject({
  phase: z.literal('running'),
  ...supervisorFields,
  runtime_pid: PidSchema,
  /** The runtime leads its own process group, so this equals runtime_pid. */
  runtime_pgid: PidSchema,
  runtime_start_time: StartTimeSchema,
});
export type RunningStatus = z.infer<typeof RunningStatusSchema>;

/** One output stream as the supervisor saw it: everything the runtime wrote, and what did not reach the log. */
export const StreamOutputSchema = z.strictObject({
  received_bytes: z.int().nonnegative(),
  /** Received but not written: beyond the cap, or after the log could not be written. */
  dropped_bytes: z.int().nonnegative(),
});
export type StreamOutput = z.infer<typeof StreamOutputSchema>;

/** What the supervisor did with the runtime's output; each log holds at most cap_bytes of this run. */
export const RunOutputSchema = z.strictObject({
  cap_bytes: z.int().positive(),
  stdout: StreamOutputSchema,
  stderr: StreamOutputSchema,
});
export type RunOutput = z.infer<typeof RunOutputSchema>;

/**
 * The supervisor's final record, written only once the runtime's whole process group is gone.
 * A runtime that never started has null runtime fields and the errno code in spawn_error.
 */
export const ExitedStatusSchema = z.strictObject({
  phase: z.literal('exited'),
  ...supervisorFields,
  runtime_pid: PidSchema.nullable(),
  runtime_pgid: PidSchema.nullable(),
  runtime_start_time: StartTimeSchema,
  exit_code: z.int().nullable(),
  signal: z.string().nullable(),
  /** The time limit ended the run. */
  timed_out: z.boolean(),
  /** STOP (SIGTERM to the supervisor) ended the run. */
  stopped: z.boolean(),
  spawn_error: z.string().nullable(),
  ended_at: TimestampSchema,
  duration_ms: z.int().nonnegative(),
  /** Null when nothing was spawned; absent in records written before output was capped. */
  output: RunOutputSchema.nullable().optional(),
});
export type ExitedStatus = z.infer<typeof ExitedStatusSchema>;

/** The status file holds exactly one of these. */
export const RunStatusSchema = z.discriminatedUnion('phase', [RunningStatusSchema, ExitedStatusSchema]);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/**
 * Never written by the supervisor: the observation that supervisor and runtime are both gone
 * without an exited record. The engine marks such a branch blocked/unknown and never relaunches it.
 */
export const LostRunSchema = z.strictObject({ phase: z.literal('lost') });
export type LostRun = z.infer<typeof LostRunSchema>;
