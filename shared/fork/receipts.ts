import { z } from 'zod';
import { DigestSchema } from '../digest';
import { ReceiptContainmentSchema } from './containment-facts';
import { FailureCodeSchema, TelemetrySchema } from '../runtime/telemetry';
import { BranchIdSchema, CommitShaSchema, ForkIdSchema, IssuerIdSchema } from './ids';
import { IsoTimeSchema } from '../iso-time';
import { RuntimeLabelSchema } from '../executors/runtime-profile';
import { WorktreeIncludeEntrySchema } from './contract';
import { WireFactsSchema } from '../runtime/wire';

export const DiffSummarySchema = z.strictObject({
  files_changed: z.number().int().nonnegative(),
  insertions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
});
export type DiffSummary = z.infer<typeof DiffSummarySchema>;

export const VerifierStepSchema = z.strictObject({
  // result_symlinks is newer than the others: a receipt written before it has no such step.
  id: z.enum(['git_diff_check', 'workflow_verifier', 'protected_paths', 'result_symlinks']),
  status: z.enum(['passed', 'failed', 'not_run']),
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean(),
  duration_ms: z.number().int().nonnegative().nullable(),
  output_digest: DigestSchema.nullable(),
});
export type VerifierStep = z.infer<typeof VerifierStepSchema>;

export const VerifierEvidenceSchema = z.strictObject({
  status: z.enum(['passed', 'failed', 'not_run']),
  steps: z.array(VerifierStepSchema),
});
export type VerifierEvidence = z.infer<typeof VerifierEvidenceSchema>;

/** One workflow setup step as it ran in the branch worktree before the runtime (issue 13). */
export const SetupStepEvidenceSchema = z.strictObject({
  id: z.string(),
  status: z.enum(['passed', 'failed', 'not_run']),
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean(),
  duration_ms: z.number().int().nonnegative().nullable(),
  output_digest: DigestSchema.nullable(),
});
export type SetupStepEvidence = z.infer<typeof SetupStepEvidenceSchema>;

/** The setup a run started from: its steps, what it left for the verifier (a digest of its fingerprints), and how it was contained. */
export const SetupEvidenceSchema = z.strictObject({
  steps: z.array(SetupStepEvidenceSchema).min(1),
  kept_paths_digest: DigestSchema,
  containment: ReceiptContainmentSchema,
});
export type SetupEvidence = z.infer<typeof SetupEvidenceSchema>;

export const InstructionFileSchema = z.strictObject({ path: z.string(), digest: DigestSchema.nullable(), kind: z.enum(['file', 'directory', 'other']) });

/** A run whose output went past the supervisor's cap: the cap, and per stream the bytes not kept in its log. */
export const OutputTruncationSchema = z.strictObject({
  cap_bytes: z.number().int().positive(),
  stdout_dropped_bytes: z.number().int().nonnegative(),
  stderr_dropped_bytes: z.number().int().nonnegative(),
});
export type OutputTruncation = z.infer<typeof OutputTruncationSchema>;

/** The block of TCP ports a branch ran with (issue 13): CITADEL_PORT is `first`, the block `first` … `first + count - 1`. */
export const PortBlockSchema = z.strictObject({
  first: z.number().int().min(1024).max(65535),
  count: z.number().int().min(1).max(64),
});
export type PortBlock = z.infer<typeof PortBlockSchema>;

/** The signed execution receipt (decisions D9): every branch fact compare or display uses. */
export const ExecutionReceiptSchema = z.strictObject({
  schema_version: z.literal(1),
  kind: z.literal('execution_receipt'),
  fork_id: ForkIdSchema,
  branch_id: BranchIdSchema,
  attempt: z.number().int().min(1),
  runtime: RuntimeLabelSchema,
  contract_digest: DigestSchema,
  executor_profile_digest: DigestSchema.nullable(),
  argv_digest: DigestSchema,
  instruction_digest: DigestSchema,
  env_names: z.array(z.string()),
  instruction_files: z.array(InstructionFileSchema),
  started_at: IsoTimeSchema.nullable(),
  ended_at: IsoTimeSchema.nullable(),
  duration_ms: z.number().int().nonnegative().nullable(),
  exit: z.strictObject({
    code: z.number().int().nullable(),
    signal: z.string().nullable(),
    timed_out: z.boolean(),
    stopped: z.boolean(),
  }),
  base_revision: CommitShaSchema,
  result_commit: CommitShaSchema.nullable(),
  result_tree: CommitShaSchema.nullable(),
  diff: DiffSummarySchema.nullable(),
  diff_digest: DigestSchema.nullable(),
  verifier: VerifierEvidenceSchema,
  telemetry: TelemetrySchema,
  status: z.enum(['passed', 'failed']),
  failure_code: FailureCodeSchema.nullable(),
  /** The containment the run ran under (issue 11); absent in receipts written before containment. */
  containment: ReceiptContainmentSchema.optional(),
  /**
   * Null: both logs hold all the run printed. Absent where the supervisor recorded no output counts
   * (a run STOP ended without a record; receipts written before logs were capped).
   */
  output_truncated: OutputTruncationSchema.nullable().optional(),
  /** Issue 13: the `.worktreeinclude` files copied into the worktree (path and digest, never content); absent when the contract names none. */
  worktree_include: z.array(WorktreeIncludeEntrySchema.pick({ path: true, digest: true })).optional(),
  /** Issue 13: the port block the runtime and the verifier got as CITADEL_PORT; null when none was leased (the run never started). Absent in earlier receipts. */
  ports: PortBlockSchema.nullable().optional(),
  /** Issue 13: the workflow's setup, when its contract has one; absent in receipts of forks without setup. */
  setup: SetupEvidenceSchema.optional(),
  /**
   * Issue 28: what the provider gateway saw, when the contract binds a gateway for the branch (all
   * zero when it saw nothing); absent for runs without a gateway and in earlier receipts.
   */
  wire: WireFactsSchema.optional(),
});
export type ExecutionReceipt = z.infer<typeof ExecutionReceiptSchema>;

/** The complete branch result used by comparison and display, bound by the observation digest. */
export const BranchResultSchema = z.strictObject({
  status: z.enum(['passed', 'failed']),
  evidence_summary: z.strictObject({
    verifier_status: VerifierEvidenceSchema.shape.status,
    steps: z.array(z.strictObject({ id: VerifierStepSchema.shape.id, status: VerifierStepSchema.shape.status })),
  }),
  diff_summary: DiffSummarySchema.nullable(),
  duration_ms: z.number().int().nonnegative().nullable(),
  cost_usd: z.number().nonnegative().nullable(),
  failure_code: FailureCodeSchema.nullable(),
});
export type BranchResult = z.infer<typeof BranchResultSchema>;

/** The complete branch result used by comparison and display (bound by the observation digest). */
export function branchResultOf(receipt: ExecutionReceipt): BranchResult {
  return {
    status: receipt.status,
    evidence_summary: { verifier_status: receipt.verifier.status, steps: receipt.verifier.steps.map(({ id, status }) => ({ id, status })) },
    diff_summary: receipt.diff,
    duration_ms: receipt.duration_ms,
    cost_usd: receipt.telemetry.cost_usd,
    failure_code: receipt.failure_code,
  };
}

/** Parsed telemetry plus the digest of the branch result (executor-profiles.md, Fork receipt wrapper). */
export const ObservationSchema = z.strictObject({
  telemetry: TelemetrySchema,
  branch_result_digest: DigestSchema,
});
export type Observation = z.infer<typeof ObservationSchema>;

/** The schema 2 fork receipt wrapper: exactly these ten signed fields. */
export const ForkReceiptSchema = z.strictObject({
  schema_version: z.literal(1),
  kind: z.literal('operation_fork_execution_receipt'),
  fork_id: ForkIdSchema,
  branch_id: BranchIdSchema,
  contract_digest: DigestSchema,
  executor_profile_digest: DigestSchema,
  execution_receipt_digest: DigestSchema,
  observation_digest: DigestSchema,
  issued_at: IsoTimeSchema,
  issuer_id: IssuerIdSchema,
});
export type ForkReceipt = z.infer<typeof ForkReceiptSchema>;
