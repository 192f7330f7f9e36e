import { z } from 'zod';
import { DigestSchema } from '../digest';
import { ErrorCodeSchema } from '../errors';
import { FailureCodeSchema } from '../runtime/telemetry';
import { RuntimeLabelSchema } from '../executors/runtime-profile';
import { BRANCH_STATES, FORK_STATES } from './fork-states';
import { BranchIdSchema, CommitShaSchema, ForkIdSchema, gitBranchName } from './ids';
import { IsoTimeSchema } from '../iso-time';
import { ChildForkSchema, LineageSchema } from './lineage';

/** Parent fork states (spec/operation-fork.md, States; the names in fork-states.ts). */
export const ForkStateSchema = z.enum(FORK_STATES);
export type ForkState = z.infer<typeof ForkStateSchema>;

/** Branch states (the Operations Protocol states). */
export const BranchStateSchema = z.enum(BRANCH_STATES);
export type BranchState = z.infer<typeof BranchStateSchema>;

/**
 * Why a branch waits for an operator: enumerated, never free text. `start_refused`: its start was
 * refused before its runtime was launched (nothing ran); `contract_unverifiable`: the fork's stored
 * contract no longer matches its digest, so no evidence of the fork can verify.
 */
export const BlockedReasonSchema = z.enum(['launch_in_doubt', 'process_lost', 'collect_failed', 'start_refused', 'contract_unverifiable']);
export type BlockedReason = z.infer<typeof BlockedReasonSchema>;

export const StateChangeSchema = z.strictObject({ state: z.string(), at: IsoTimeSchema });
export type StateChange = z.infer<typeof StateChangeSchema>;

export const BranchRecordSchema = z.strictObject({
  branch_id: BranchIdSchema,
  profile_id: z.string(),
  runtime: RuntimeLabelSchema,
  executor_profile_digest: DigestSchema.nullable(),
  git_branch: z.string(),
  attempt: z.number().int().min(1),
  state: BranchStateSchema,
  failure_code: FailureCodeSchema.nullable(),
  blocked_reason: BlockedReasonSchema.nullable(),
  /** The typed error behind `collect_failed`, `start_refused` or `contract_unverifiable`, so the operator can see why; absent otherwise (and in older records). */
  blocked_code: ErrorCodeSchema.optional(),
  history: z.array(StateChangeSchema),
});
export type BranchRecord = z.infer<typeof BranchRecordSchema>;

/** The public-safe fork snapshot (`fork.json`): ids, digests and states; no paths, no prompt. */
export const ForkRecordSchema = z
  .strictObject({
  schema_version: z.union([z.literal(1), z.literal(2)]),
  fork_id: ForkIdSchema,
  demo: z.boolean(),
  revision: z.number().int().nonnegative(),
  state: ForkStateSchema,
  created_at: IsoTimeSchema,
  base_revision: CommitShaSchema,
  contract_digest: DigestSchema,
  executor_set_digest: DigestSchema.nullable(),
  history: z.array(StateChangeSchema),
  branches: z.array(BranchRecordSchema).min(2),
  })
  // Destructive git verbs (clean, retry) act on git_branch: a stored record may only name the fork's own branches.
  .refine((r) => r.branches.every((b) => b.git_branch === gitBranchName(r.fork_id, b.branch_id)), {
    path: ['branches'],
    message: 'every git_branch must be citadel/<fork_id>/<branch_id>',
  });
export type ForkRecord = z.infer<typeof ForkRecordSchema>;

/** `citadel fork status --json` (decisions D13). */
export const ForkStatusSchema = z.strictObject({
  fork_id: ForkIdSchema,
  schema_version: z.union([z.literal(1), z.literal(2)]),
  demo: z.boolean(),
  state: ForkStateSchema,
  revision: z.number().int(),
  base_revision: CommitShaSchema,
  contract_digest: DigestSchema,
  executor_set_digest: DigestSchema.nullable(),
  created_at: IsoTimeSchema,
  /** The objective's first line, shortened (issue 14): local, private state, never in a replay or proof; null when the objective does not match the contract's digest. */
  title: z.string().nullable(),
  /**
   * Whether the title comes from the objective the verified contract binds: `unverified` when the
   * stored objective (or the contract) does not match, so a changed file is said, not shown blank.
   */
  title_standing: z.enum(['verified', 'unverified']),
  /** The target repository's folder name (issue 14), local like the title; null when the fork's request cannot be read. */
  repo_name: z.string().nullable(),
  /**
   * Issue 32: the branch this fork continues, from its verified contract, when that parent is here and its record bears it out (its
   * contract digest and the branch); null for a first fork, or when the contract does not verify or names a parent that is not here as named.
   */
  lineage: LineageSchema.nullable(),
  /** Issue 32: the forks that continue one of this fork's branches, each found by its own verified contract, oldest first. */
  children: z.array(ChildForkSchema),
  branches: z.array(
    z.strictObject({
      branch_id: BranchIdSchema,
      profile_id: z.string(),
      runtime: RuntimeLabelSchema,
      state: BranchStateSchema,
      failure_code: FailureCodeSchema.nullable(),
      blocked_reason: BlockedReasonSchema.nullable(),
      blocked_code: ErrorCodeSchema.nullable(),
      attempt: z.number().int(),
    }),
  ),
});
export type ForkStatus = z.infer<typeof ForkStatusSchema>;
