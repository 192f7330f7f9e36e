import { z } from 'zod';
import { ErrorCodeSchema } from '../errors';
import { FailureCodeSchema } from '../runtime/telemetry';
import { BranchStateSchema, ForkStateSchema } from './fork-record';
import { VerifierStepSchema } from './receipts';

/** Typed events the orchestrator streams to every shell (CLI progress, Mission Control). */
export const ForkEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('fork_state'), fork_id: z.string(), state: ForkStateSchema, revision: z.number().int() }),
  z.strictObject({
    type: z.literal('branch_state'),
    fork_id: z.string(),
    branch_id: z.string(),
    state: BranchStateSchema,
    failure_code: FailureCodeSchema.nullable(),
  }),
  z.strictObject({
    type: z.literal('runtime'),
    fork_id: z.string(),
    branch_id: z.string(),
    phase: z.enum(['worktree_ready', 'launched', 'exited', 'stop_requested', 'lost']),
  }),
  z.strictObject({
    type: z.literal('verifier_step'),
    fork_id: z.string(),
    branch_id: z.string(),
    step: VerifierStepSchema.shape.id,
    status: z.enum(['passed', 'failed', 'not_run']),
  }),
  // A setup step of a branch attempt (issue 13): `running` when it starts, then its result, so the Fork view shows setup live.
  z.strictObject({
    type: z.literal('setup_step'),
    fork_id: z.string(),
    branch_id: z.string(),
    step: z.string(),
    status: z.enum(['running', 'passed', 'failed', 'not_run']),
  }),
  // A drive a shell started in the background (start, resume, retry) stopped with an error. The
  // message is safe to show anywhere: it never carries a local path or a secret-like value.
  z.strictObject({ type: z.literal('drive_failed'), fork_id: z.string(), code: ErrorCodeSchema, message: z.string().max(2000) }),
]);
export type ForkEvent = z.infer<typeof ForkEventSchema>;
export type ForkEventSink = (event: ForkEvent) => void;
