import { z } from 'zod';
import { digestOf, DigestSchema, type Digest } from '../digest';
import { BranchIdSchema, CommitShaSchema, ForkIdSchema } from './ids';
import { IsoTimeSchema } from '../iso-time';
import { AgainstEvidenceSchema } from './selection-evidence';

/**
 * An operator's selection (spec: Selection and landing): an immutable decision that runs no git.
 * `fork_revision` is the revision of the fork record the operator selected against. Recording the
 * selection is itself exactly one transition (state → `selected`), so the selection is current
 * while the record stays at `selectedRevision(selection)`; any later change makes it stale.
 * `against_evidence` is present only when the operator selected a branch the evidence did not
 * support and acknowledged it (selection-evidence.ts); a selection without it agreed with the evidence.
 */
export const SelectionRecordSchema = z.strictObject({
  fork_id: ForkIdSchema,
  fork_revision: z.number().int().nonnegative(),
  branch_id: BranchIdSchema,
  actor: z.string().min(1).max(128),
  reason_digest: DigestSchema,
  idempotency_key: z.string().min(1).max(128),
  selected_at: IsoTimeSchema,
  against_evidence: AgainstEvidenceSchema.optional(),
});
export type SelectionRecord = z.infer<typeof SelectionRecordSchema>;

export function selectionDigest(selection: SelectionRecord): Digest {
  return digestOf(selection);
}

/** The one fork revision at which `selection` is current: the revision its own recording produced. */
export function selectedRevision(selection: Pick<SelectionRecord, 'fork_revision'>): number {
  return selection.fork_revision + 1;
}

/** Landing preconditions, in the order they are checked and reported (decisions D10, D13). */
export const LANDING_CHECK_NAMES = [
  'selection_current',
  'selected_branch_exists',
  'base_revision_exists',
  'target_contained',
  'target_clean',
  'target_on_branch',
  'target_head_confirmed',
  'receipt_verified',
  'confirmation_token',
] as const;
export const LandingCheckNameSchema = z.enum(LANDING_CHECK_NAMES);
export type LandingCheckName = z.infer<typeof LandingCheckNameSchema>;

/** One precondition: `reason` says why it failed, or adds information when it passed. */
export const LandingCheckSchema = z.strictObject({ name: LandingCheckNameSchema, ok: z.boolean(), reason: z.string().nullable() });
export type LandingCheck = z.infer<typeof LandingCheckSchema>;

export const LandingTokenSchema = z.string().regex(/^[0-9a-f]{12}$/);

/** The facts a confirmation token binds (decisions D10). */
export const LandingTokenFactsSchema = z.strictObject({
  fork_id: ForkIdSchema,
  fork_revision: z.number().int().nonnegative(),
  selection_digest: DigestSchema,
  target_repo_head: CommitShaSchema,
  selected_branch_head: CommitShaSchema,
});
export type LandingTokenFacts = z.infer<typeof LandingTokenFactsSchema>;

const DIGEST_PREFIX = 'sha256:';

/** The first 12 hex digits of the digest of the token facts (decisions D10). */
export function landingToken(facts: LandingTokenFacts): string {
  return digestOf(facts).slice(DIGEST_PREFIX.length, DIGEST_PREFIX.length + 12);
}

/** What a landing would do. A fact Citadel could not establish is null, never guessed. */
export const LandingPlanSchema = z.strictObject({
  fork_id: ForkIdSchema,
  fork_revision: z.number().int().nonnegative(),
  branch_id: BranchIdSchema,
  git_branch: z.string(),
  selection_digest: DigestSchema,
  base_revision: CommitShaSchema,
  target_repo: z.string(),
  target_branch: z.string().nullable(),
  target_repo_head: CommitShaSchema.nullable(),
  selected_branch_head: CommitShaSchema.nullable(),
  /** The selection's acknowledgement, when it was made against the evidence: landing shows it as a warning. */
  against_evidence: AgainstEvidenceSchema.optional(),
  /**
   * Issue 32: a follow-up's landing also brings the branch it continues (its base). `in_target`: that
   * result is already in the target's HEAD (it was landed); false: this merge brings its work too,
   * which Compare did not show (it diffs the follow-up against that base); null: unknown.
   */
  continues: z
    .strictObject({ parent_fork_id: ForkIdSchema, parent_branch_id: BranchIdSchema, parent_result_commit: CommitShaSchema, in_target: z.boolean().nullable() })
    .optional(),
});
export type LandingPlan = z.infer<typeof LandingPlanSchema>;
export type LandingContinues = NonNullable<LandingPlan['continues']>;

/** What landing a follow-up brings besides its own work (issue 32), in the words the CLI and Mission Control both show. */
export function describeContinues({ parent_fork_id, parent_branch_id, parent_result_commit, in_target }: LandingContinues): string {
  const parent = `${parent_fork_id}/${parent_branch_id}`;
  if (in_target === true) return `This follow-up continues ${parent}, whose result is already in the target: the merge brings only the follow-up's own work.`;
  const what = `the work of ${parent} (its result ${parent_result_commit.slice(0, 12)}), which Compare did not show: it diffs the follow-up against that result`;
  return in_target === false
    ? `This follow-up continues ${parent}, which is not in the target: the merge also brings ${what}.`
    : `This follow-up continues ${parent}; whether its result is in the target is unknown: the merge may also bring ${what}.`;
}

/** `citadel fork land ID` without `--confirm`: the token is null when any check fails. */
export const LandingChecksResultSchema = z.strictObject({
  checks: z.array(LandingCheckSchema),
  token: LandingTokenSchema.nullable(),
  plan: LandingPlanSchema,
});
export type LandingChecksResult = z.infer<typeof LandingChecksResultSchema>;

/** `citadel fork land ID --confirm TOKEN`. */
export const LandingResultSchema = z.strictObject({ landed: z.literal(true), merge_commit: CommitShaSchema });
export type LandingResult = z.infer<typeof LandingResultSchema>;

/** The last plan a token was issued for (`landing-plan.json`): what `--confirm` compares the target HEAD with. */
export const IssuedPlanSchema = z.strictObject({ token: LandingTokenSchema, issued_at: IsoTimeSchema, plan: LandingPlanSchema });
export type IssuedPlan = z.infer<typeof IssuedPlanSchema>;

const LandingRecordBase = {
  fork_id: ForkIdSchema,
  branch_id: BranchIdSchema,
  /** The selection's own revision (see SelectionRecordSchema). */
  fork_revision: z.number().int().nonnegative(),
  selection_digest: DigestSchema,
  target_branch: z.string(),
  target_head_before: CommitShaSchema,
  selected_branch_head: CommitShaSchema,
};

/** `landing.json` in the fork's private state: how landing ended. */
export const LandingRecordSchema = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('landed'), ...LandingRecordBase, merge_commit: CommitShaSchema, landed_at: IsoTimeSchema }),
  z.strictObject({
    status: z.literal('blocked'),
    ...LandingRecordBase,
    /** A merge was started and its commit is not on the target branch: only an operator can tell what happened. */
    reason: z.literal('landing_in_doubt'),
    blocked_at: IsoTimeSchema,
  }),
]);
export type LandingRecord = z.infer<typeof LandingRecordSchema>;
