import { z } from 'zod';
import { DigestSchema } from '../digest';
import { ContractContainmentSchema } from './containment-facts';
import { CommitShaSchema, ForkIdSchema, IssuerIdSchema } from './ids';
import { LineageSchema } from './lineage';
import { VerifierSchema, WorkflowSchema } from './workflow';

/**
 * One ignored file `.worktreeinclude` chose (issue 13): its repository-relative path, the digest and
 * size of the content copied into every branch worktree. Evidence only: the content is never stored
 * in a record, and neither the path nor the digest goes into a replay.
 */
export const WorktreeIncludeEntrySchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .refine((p) => !p.includes('\0') && !p.startsWith('/') && !p.split('/').some((part) => part === '' || part === '.' || part === '..'), {
      message: 'must be a normalized path inside the repository',
    }),
  digest: DigestSchema,
  size_bytes: z.number().int().nonnegative(),
});
export type WorktreeIncludeEntry = z.infer<typeof WorktreeIncludeEntrySchema>;

export const ScopeSchema = z.strictObject({
  repository: z.literal('whole'),
  effects: z.literal('branch_worktree'),
});

export const PolicySchema = z.strictObject({
  protected_paths: z.array(z.string()),
  landing: z.literal('selection_and_confirmation'),
});

/** Budget (decisions D8): unknown cost limit is null, meaning unlimited. */
export const MAX_ATTEMPTS_LIMIT = 10;

/** The largest token budget a contract takes: far beyond any run, still a safe integer everywhere. */
export const MAX_BUDGET_TOKENS = 1_000_000_000;

export const BudgetSchema = z.strictObject({
  max_duration_seconds: z.number().int().min(1).max(7 * 24 * 3600),
  max_cost_usd: z.number().positive().nullable(),
  /** Attempts per branch, the first included: `fork resolve --retry` past it is refused. */
  max_attempts: z.number().int().min(1).max(MAX_ATTEMPTS_LIMIT),
  /**
   * Issue 28: input plus output tokens the provider gateway lets a branch spend (`--budget-tokens`);
   * past it the gateway refuses and the branch ends BUDGET_EXCEEDED. Absent: unlimited, and every
   * contract without it keeps its digest.
   */
  max_tokens: z.number().int().min(1).max(MAX_BUDGET_TOKENS).optional(),
});
export type Budget = z.infer<typeof BudgetSchema>;

export const DEFAULT_BUDGET: Budget = { max_duration_seconds: 1800, max_cost_usd: null, max_attempts: 1 };

const ContractCore = {
  objective_digest: DigestSchema,
  scope: ScopeSchema,
  policy: PolicySchema,
  budget: BudgetSchema,
  workflow: WorkflowSchema,
  verifier: VerifierSchema,
  base_revision: CommitShaSchema,
  /**
   * How every executor is contained (issue 11). Optional so that a contract written before
   * containment keeps its digest; absent means `runtime-only`.
   */
  containment: ContractContainmentSchema.optional(),
  /**
   * Issue 12: the fork the contract is for, and the digest of the target repository's identity
   * (main/landing/target-identity.ts; never its path). Optional so that every contract written
   * before keeps its digest; a contract that binds them is refused anywhere else.
   */
  fork_id: ForkIdSchema.optional(),
  target_repository_digest: DigestSchema.optional(),
  /**
   * Issue 13: the files `.worktreeinclude` chose, frozen when the fork was created and copied into
   * every branch worktree. Absent: the repository had no `.worktreeinclude` (and earlier contracts keep their digest).
   */
  worktree_include: z.array(WorktreeIncludeEntrySchema).optional(),
  /**
   * Issue 32: the branch this fork continues (its base revision is that branch's result). Absent
   * for a first fork, so every contract written before keeps its digest.
   */
  lineage: LineageSchema.optional(),
};

/** Schema 1 (`--runtimes`): the shared operation contract of decisions D3. */
export const ContractV1Schema = z.strictObject(ContractCore);
/** Schema 2 (`--executors`): additionally binds the executor set and the signer. */
export const ContractV2Schema = z.strictObject({
  ...ContractCore,
  executor_set_digest: DigestSchema,
  signer_public_key_digest: DigestSchema,
  issuer_id: IssuerIdSchema,
});
export type ContractV1 = z.infer<typeof ContractV1Schema>;
export type ContractV2 = z.infer<typeof ContractV2Schema>;
export type Contract = ContractV1 | ContractV2;

/** The token budget the gateway enforces for every branch of the fork; null when the contract sets none. */
export function budgetTokensOf(contract: Contract): number | null {
  return contract.budget.max_tokens ?? null;
}

/** Whether the contract sends this branch's runtime through the provider gateway, so its receipt carries wire facts. */
export function bindsGateway(contract: Contract, branchId: string): boolean {
  const containment = contract.containment;
  return containment?.mode === 'contained' && containment.runtimes[branchId]?.egress.kind === 'gateway';
}
