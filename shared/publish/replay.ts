import { z } from 'zod';
import { DigestSchema } from '../digest';
import { ReceiptContainmentSchema } from '../fork/containment-facts';
import { PublicContainmentSchema } from '../fork/containment-display';
import { StateChangeSchema } from '../fork/fork-record';
import { LineageSchema } from '../fork/lineage';
import { ModelProofStatusSchema } from '../fork/model-proof';
import { PublicWireFactsSchema } from './public-wire';

/**
 * Issue 32: the branch a follow-up continues, as the replay may show it: opaque ids and digests.
 * Never a commit (the parent's result and the chain's first base are repository identity) nor its objective (only its digest, which
 * the parent's own replay already shows as `objective_digest`).
 */
export const ReplayLineageSchema = LineageSchema.omit({ parent_result_commit: true, root_base_revision: true });
export type ReplayLineage = z.infer<typeof ReplayLineageSchema>;

/**
 * The public replay (spec/operation-fork.md, Redacted replay): built only from these allowlisted
 * fields. No prompt, source, diff, repository identity (not even the base commit), path,
 * environment value, credential, command output, signature or free-form reason.
 */
export const ReplaySchema = z.strictObject({
  schema_version: z.literal(1),
  kind: z.literal('citadel_replay'),
  fork: z.strictObject({
    fork_id: z.string(),
    schema_version: z.union([z.literal(1), z.literal(2)]),
    demo: z.boolean(),
    state: z.string(),
    created_at: z.string(),
    history: z.array(StateChangeSchema),
    /**
     * Issue 12: `demo`, `state`, `created_at` and `history` (the fork's and each branch's, and each
     * branch's `state`) are copied from fork.json, which nothing signs; verified facts are the
     * digests, receipts, comparison, and selection and landing (shown only when they stand). Absent
     * for a fork whose contract predates the binding, so its replay stays byte-identical.
     */
    record_facts: z.literal('unverified').optional(),
  }),
  contract: z.strictObject({
    contract_digest: DigestSchema,
    objective_digest: DigestSchema,
    scope_digest: DigestSchema,
    policy_digest: DigestSchema,
    budget_digest: DigestSchema,
    workflow_digest: DigestSchema,
    verifier_digest: DigestSchema,
    executor_set_digest: DigestSchema.nullable(),
    signer_public_key_digest: DigestSchema.nullable(),
    /** Absent for a fork that predates containment (it ran runtime-only), so its replay stays byte-identical. */
    containment: PublicContainmentSchema.optional(),
    /** Issue 32: a follow-up's parent branch; absent for a first fork, so its replay stays byte-identical. */
    lineage: ReplayLineageSchema.optional(),
  }),
  branches: z.array(
    z.strictObject({
      branch_id: z.string(),
      profile_id: z.string(),
      runtime: z.string(),
      provider: z.string().nullable(),
      requested_model: z.string(),
      observed_model: z.string().nullable(),
      model_proof: ModelProofStatusSchema,
      executor_profile_digest: DigestSchema.nullable(),
      state: z.string(),
      failure_code: z.string().nullable(),
      attempt: z.number().int(),
      history: z.array(StateChangeSchema),
      receipt_verified: z.boolean(),
      verification_reasons: z.array(z.string()),
      execution_receipt_digest: DigestSchema.nullable(),
      fork_receipt_digest: DigestSchema.nullable(),
      verifier: z.strictObject({
        status: z.string(),
        steps: z.array(z.strictObject({ id: z.string(), status: z.string(), exit_code: z.number().int().nullable(), timed_out: z.boolean() })),
      }),
      /** The verified receipt's containment (backend, its version, policy digest); absent when unverified or predating containment. */
      containment: ReceiptContainmentSchema.optional(),
      /** Issue 28: what the provider gateway saw (public-safe models, counts, tokens, booleans); absent without a gateway or a verified receipt. */
      wire: PublicWireFactsSchema.optional(),
    }),
  ),
  comparison: z.strictObject({
    outcome: z.enum(['recommend', 'tie', 'insufficient-evidence']),
    recommended_branch_id: z.string().nullable(),
  }),
  /**
   * `problem`: a selection record is stored but does not stand (another fork's, its signature does not verify, or a branch not
   * comparable now), so none is shown. `signature: 'unsigned'`: a standing selection made before selections were signed, bound by the journal alone.
   * `against_evidence: true`: the standing selection was made against the evidence (a branch not recommended, or whose verifier did not pass), acknowledged.
   */
  selection: z.strictObject({
    selected: z.boolean(),
    branch_id: z.string().nullable(),
    selected_at: z.string().nullable(),
    problem: z.literal('selection_unverified').optional(),
    signature: z.literal('unsigned').optional(),
    against_evidence: z.literal(true).optional(),
  }),
  /** `problem`: a landing is recorded (landing.json, or a journaled `done`) but does not hold, so the fork is not shown landed. */
  landing: z.strictObject({ landed: z.boolean(), landed_at: z.string().nullable(), problem: z.literal('landing_unverified').optional() }),
});
export type Replay = z.infer<typeof ReplaySchema>;

export const ProofReportSchema = z.strictObject({
  schema_version: z.literal(1),
  kind: z.literal('citadel_proof_report'),
  fork_id: z.string(),
  counts: z.strictObject({
    branches: z.number().int(),
    comparable: z.number().int(),
    verified_receipts: z.number().int(),
    model_proof: z.strictObject({ passed: z.number().int(), failed: z.number().int(), unknown: z.number().int() }),
  }),
  comparison: z.strictObject({
    outcome: z.enum(['recommend', 'tie', 'insufficient-evidence']),
    recommended_branch_id: z.string().nullable(),
  }),
  /**
   * Issue 30: per branch, how many of the verifier steps its contract requires ran, as the
   * comparison counts them (shared/fork/required-evidence.ts). Here, not in the replay, so replays
   * (and the attestations that bind them) stay byte-identical; optional only so reports written before still open.
   */
  required_evidence: z.array(z.strictObject({ branch_id: z.string(), required: z.number().int(), present: z.number().int() })).optional(),
  replay_digest: DigestSchema,
  replay: ReplaySchema,
  /** The replay's record facts are unsigned (see ReplaySchema `fork.record_facts`); optional only so reports written before still open. */
  record_facts: z.literal('unverified').optional(),
});
export type ProofReport = z.infer<typeof ProofReportSchema>;

/** What Mission Control shows of a proof report: its digest and a bounded summary, never the replay. */
export const ProofProjectionSchema = z.strictObject({
  fork_id: z.string(),
  report_digest: DigestSchema,
  branches: z.number().int(),
  verified_receipts: z.number().int(),
  comparable: z.number().int(),
  model_proof: ProofReportSchema.shape.counts.shape.model_proof,
  outcome: ProofReportSchema.shape.comparison.shape.outcome,
  recommended_branch_id: z.string().nullable(),
  /**
   * Branches whose verified receipt ran inside an OS sandbox, and those that ran runtime-only
   * (chosen, or predating containment); the rest have no verified receipt.
   */
  containment: z.strictObject({ contained: z.number().int(), runtime_only: z.number().int() }),
});
export type ProofProjection = z.infer<typeof ProofProjectionSchema>;
