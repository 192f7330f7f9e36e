import { z } from 'zod';
import { ErrorCodeSchema } from '../errors';
import { FailureCodeSchema } from '../runtime/telemetry';
import { BranchStateSchema, ForkStateSchema } from './fork-record';
import { UNPRINTABLE_IN_PATH } from './printable-path';
import { VerifierStepSchema } from './receipts';

/** A running attempt's clock: its start and time budget (null when the contract could not be read). */
export const RunClockSchema = z.strictObject({
  started_at: z.iso.datetime(),
  budget_seconds: z.number().int().positive().nullable(),
  /** Whether the runtime's output streams while it runs (Codex's JSONL); false: it arrives when the runtime exits (Claude Code's one result). */
  streams_output: z.boolean(),
});

/** One event of a runtime's machine output, as a kind and a short plain sentence (never the raw line). */
export const RuntimeActivitySchema = z.strictObject({
  kind: z.enum(['session', 'turn_started', 'turn_completed', 'turn_failed', 'item_started', 'item_completed', 'command_started', 'command_completed', 'error']),
  summary: z.string().max(240),
});
export type RuntimeActivity = z.infer<typeof RuntimeActivitySchema>;

/** How many of a live diff's changed files it names (the Fork view lists them; the count is always whole). */
export const LIVE_DIFF_MAX_PATHS = 20;
/** A longer path (past Linux's PATH_MAX) is counted but not named. */
export const LIVE_DIFF_MAX_PATH_LENGTH = 4096;
/**
 * The changed files a live diff names: sorted, the first LIVE_DIFF_MAX_PATHS, each once and shown
 * printable (printablePath). A view lists them: a name twice, or one holding a newline or a
 * bidirectional override, is refused rather than shown (a damaged live trail is shown as none).
 */
export const LiveDiffPathsSchema = z
  .array(
    z
      .string()
      .min(1)
      .max(LIVE_DIFF_MAX_PATH_LENGTH)
      .refine((p) => !UNPRINTABLE_IN_PATH.test(p), 'holds an unprintable character'),
  )
  .max(LIVE_DIFF_MAX_PATHS)
  .refine((paths) => new Set(paths).size === paths.length, 'names a file twice');

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
    /** On `launched` (issue 14): when the runtime started and its time budget, so a shell can show the elapsed time ticking. */
    run: RunClockSchema.optional(),
  }),
  // Issue 14: what a running branch's worktree holds against the base, polled by the drive while the runtime runs.
  z.strictObject({
    type: z.literal('live_diff'),
    fork_id: z.string(),
    branch_id: z.string(),
    files_changed: z.number().int().nonnegative(),
    insertions: z.number().int().nonnegative(),
    deletions: z.number().int().nonnegative(),
    // Issue 29: which files, relative to the worktree; absent when relayed from a trail written before it was kept.
    paths: LiveDiffPathsSchema.optional(),
  }),
  // Issue 14: one step of the runtime's own machine output as it arrives (Codex's JSONL), in plain words.
  // `at`, when the drive read it, and `seq`, its number in the attempt's live trail (shared/fork/live-trail.ts):
  // a view that gets it relayed late, or in both its past and live, shows and knows it as one.
  z.strictObject({
    type: z.literal('runtime_activity'),
    fork_id: z.string(),
    branch_id: z.string(),
    at: z.iso.datetime(),
    seq: z.number().int().positive(),
    ...RuntimeActivitySchema.shape,
  }),
  z.strictObject({
    type: z.literal('verifier_step'),
    fork_id: z.string(),
    branch_id: z.string(),
    step: VerifierStepSchema.shape.id,
    // `running` when the workflow's verifier command starts (issue 14); the checks before it take no time worth showing.
    status: z.enum(['running', 'passed', 'failed', 'not_run']),
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

/**
 * A fork's state change as its record's history keeps it: only in a rebuilt timeline, which has
 * no revision to give (the history records none).
 */
export const ForkHistoryEventSchema = z.strictObject({ type: z.literal('fork_history'), fork_id: z.string(), state: ForkStateSchema });

/** One past event of a fork (`forkTimeline`), rebuilt from its journal, record and receipts, with when it happened. */
export const PastForkEventSchema = z.strictObject({ at: z.iso.datetime(), event: z.union([ForkEventSchema, ForkHistoryEventSchema]) });
export type PastForkEvent = z.infer<typeof PastForkEventSchema>;
