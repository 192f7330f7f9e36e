import { z } from 'zod';
import { ReceiptContainmentSchema } from './containment-facts';
import type { ExecutionReceipt } from './receipts';
import { isComparableBranch } from './fork-state';
import { ModelProofSchema, ModelProofStatusSchema, type ModelProof } from './model-proof';
import { WireFactsSchema } from '../runtime/wire';
import { requiredEvidence, type RequiredStepId } from './required-evidence';

/** Why a branch cannot be compared, or whose evidence is incomplete: enumerated, never free text. */
export const VERIFICATION_REASONS = [
  'contract_digest_mismatch',
  'signer_key_mismatch',
  'executor_set_mismatch',
  'profile_digest_mismatch',
  'not_collected',
  'receipt_missing',
  'receipt_malformed',
  'receipt_digest_mismatch',
  'receipt_signature_invalid',
  'receipt_binding_mismatch',
  'wrapper_missing',
  'wrapper_malformed',
  'wrapper_digest_mismatch',
  'wrapper_signature_invalid',
  'wrapper_binding_mismatch',
  'observation_mismatch',
  'record_mismatch',
  'runtime_did_not_complete',
  /** The receipt's containment (backend, policy digest) is not what the contract binds for the branch. */
  'containment_mismatch',
  /**
   * The fork is signed by a key that is not an issuer key this machine's key store holds: a
   * self-consistent chain proves nothing without a trust anchor.
   */
  'signer_untrusted',
  /** The fork record names another fork than the directory it was read from (a copied fork). */
  'fork_id_mismatch',
  /** The branches in fork.json are not exactly the signed branch set (one dropped, duplicated or added). */
  'branch_set_mismatch',
  /** Issue 13: the receipt's setup (steps, containment policy digest) is not the setup its contract froze. */
  'setup_mismatch',
  /** Issue 13: the receipt's copied `.worktreeinclude` files (path, digest) are not the ones its contract froze. */
  'worktree_include_mismatch',
  /** Issue 28: the receipt states wire facts for a branch without a gateway, or none for one with a gateway. */
  'wire_mismatch',
] as const;
export const VerificationReasonSchema = z.enum(VERIFICATION_REASONS);
export type VerificationReason = z.infer<typeof VerificationReasonSchema>;

/** One branch after fresh re-verification from disk: the only input comparison accepts. */
export interface BranchEvidence {
  readonly branch_id: string;
  readonly profile_id: string;
  readonly runtime: string;
  /** The receipt (and for schema 2 its wrapper) verified cryptographically and every binding matched. */
  readonly receipt_verified: boolean;
  /** Present only when verified: unverified facts never reach a comparison. */
  readonly receipt: ExecutionReceipt | null;
  readonly reasons: readonly VerificationReason[];
  readonly model_proof: ModelProof;
  /** Digests of the verified envelopes; null unless verified. */
  readonly execution_receipt_digest: string | null;
  readonly fork_receipt_digest: string | null;
  /** The verifier steps the contract requires for this branch (required-evidence.ts). */
  readonly required_steps: readonly RequiredStepId[];
}

export const ComparedBranchSchema = z.strictObject({
  branch_id: z.string(),
  profile_id: z.string(),
  runtime: z.string(),
  comparable: z.boolean(),
  receipt_verified: z.boolean(),
  reasons: z.array(VerificationReasonSchema),
  status: z.enum(['passed', 'failed']).nullable(),
  failure_code: z.string().nullable(),
  verifier_status: z.enum(['passed', 'failed', 'not_run', 'unknown']),
  required_evidence: z.strictObject({ required: z.number().int(), present: z.number().int() }),
  model_proof: ModelProofStatusSchema,
  model: ModelProofSchema,
  files_changed: z.number().int().nullable(),
  insertions: z.number().int().nullable(),
  deletions: z.number().int().nullable(),
  duration_ms: z.number().int().nullable(),
  cost_usd: z.number().nullable(),
  /** Issue 28: from the wire when the branch had a gateway (Citadel's own count), else the runtime's telemetry; null when unknown. */
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
  tokens_source: z.enum(['gateway_wire', 'runtime_telemetry']).nullable(),
  /** Issue 28: the verified receipt's wire facts; null without a gateway or a verified receipt. Shown, never deciding. */
  wire: WireFactsSchema.nullable(),
  warnings: z.array(z.string()),
  /**
   * The containment the verified receipt records; null when there is no verified receipt or the
   * receipt predates containment (then it ran runtime-only). Shown, never deciding.
   */
  containment: ReceiptContainmentSchema.nullable(),
});
export type ComparedBranch = z.infer<typeof ComparedBranchSchema>;

export const ComparisonSchema = z.strictObject({
  outcome: z.enum(['recommend', 'tie', 'insufficient-evidence']),
  recommended_branch_id: z.string().nullable(),
  reasons: z.array(z.string()),
  branches: z.array(ComparedBranchSchema),
});
export type Comparison = z.infer<typeof ComparisonSchema>;

/**
 * The comparison engine (spec/operation-fork.md, Comparison rules): deterministic, from verified
 * evidence only. Verifier outcome dominates; a recommendation needs exactly one comparable branch
 * with the strongest verified outcome; cost and speed are reported and never decide.
 */
export function compareBranches(evidence: readonly BranchEvidence[]): Comparison {
  const branches = [...evidence].sort((a, b) => (a.branch_id < b.branch_id ? -1 : a.branch_id > b.branch_id ? 1 : 0)).map(compareOne);
  const comparable = branches.filter((b) => b.comparable);
  if (comparable.length < 2) {
    return {
      outcome: 'insufficient-evidence',
      recommended_branch_id: null,
      reasons: [`${comparable.length} of ${branches.length} branches are comparable; at least 2 are needed`],
      branches,
    };
  }
  // A pass counts only with every verifier step the contract requires: completeness dominates.
  const rank = (b: ComparedBranch): number => (b.verifier_status === 'passed' && b.status === 'passed' && evidenceComplete(b) ? 2 : 1);
  const best = Math.max(...comparable.map(rank));
  const strongest = comparable.filter((b) => rank(b) === best);
  const [only] = strongest;
  if (strongest.length === 1 && best === 2 && only) {
    return {
      outcome: 'recommend',
      recommended_branch_id: only.branch_id,
      reasons: [`${only.branch_id} is the only comparable branch whose verifier passed; cost and speed were not considered`],
      branches,
    };
  }
  return {
    outcome: 'tie',
    recommended_branch_id: null,
    reasons: [
      best === 2
        ? `${strongest.map((b) => b.branch_id).join(', ')} all passed the verifier; cost and speed do not break the tie`
        : 'no comparable branch passed the verifier',
    ],
    branches,
  };
}

const evidenceComplete = (b: ComparedBranch): boolean => b.required_evidence.present >= b.required_evidence.required;

/**
 * The tokens shown for a branch: the wire's sums when it had a gateway (an incomplete sum, where an
 * answer reported no usage, is unknown rather than a low number), else the runtime's own report.
 */
function tokensOf(r: ExecutionReceipt | null): Pick<ComparedBranch, 'input_tokens' | 'output_tokens' | 'tokens_source'> {
  if (r === null) return { input_tokens: null, output_tokens: null, tokens_source: null };
  if (r.wire !== undefined) {
    return r.wire.usage_complete ? { input_tokens: r.wire.input_tokens, output_tokens: r.wire.output_tokens, tokens_source: 'gateway_wire' } : { input_tokens: null, output_tokens: null, tokens_source: null };
  }
  const { input_tokens, output_tokens } = r.telemetry;
  return { input_tokens, output_tokens, tokens_source: input_tokens === null && output_tokens === null ? null : 'runtime_telemetry' };
}

function compareOne(e: BranchEvidence): ComparedBranch {
  // Unverified facts never reach a comparison, even if a caller hands them over.
  const r = e.receipt_verified ? e.receipt : null;
  const warnings: string[] = [];
  const comparable = e.receipt_verified && r !== null && isComparableBranch({ state: r.status, failure_code: r.failure_code });
  const reasons = [...e.reasons];
  if (e.receipt_verified && r !== null && !comparable) reasons.push('runtime_did_not_complete');
  if (r?.telemetry.cost_usd === null) warnings.push('cost_unknown');
  if (r?.duration_ms === null) warnings.push('duration_unknown');
  const tokens = tokensOf(r);
  if (r !== null && (tokens.input_tokens === null || tokens.output_tokens === null)) warnings.push('tokens_unknown');
  if (e.model_proof.status === 'failed') warnings.push('model_mismatch');
  if (e.model_proof.status === 'unknown') warnings.push('model_unproven');
  warnings.push(...(e.model_proof.warnings ?? []));
  // The wire refused requests (a model, a server tool, the budget): the run did not get all it asked for.
  if ((r?.wire?.refused ?? 0) > 0) warnings.push('gateway_refusals');
  // The logs kept only the supervisor's cap of what the runtime printed (issue 12).
  if (r?.output_truncated) warnings.push('output_truncated');
  const evidence = requiredEvidence(e.required_steps, r?.verifier.steps ?? []);
  if (comparable && r?.status === 'passed' && evidence.present < evidence.required) warnings.push('verifier_evidence_incomplete');
  return {
    branch_id: e.branch_id,
    profile_id: e.profile_id,
    runtime: e.runtime,
    comparable,
    receipt_verified: e.receipt_verified,
    reasons,
    status: r?.status ?? null,
    failure_code: r?.failure_code ?? null,
    verifier_status: r?.verifier.status ?? 'unknown',
    required_evidence: evidence,
    model_proof: e.model_proof.status,
    model: e.model_proof,
    files_changed: r?.diff?.files_changed ?? null,
    insertions: r?.diff?.insertions ?? null,
    deletions: r?.diff?.deletions ?? null,
    duration_ms: r?.duration_ms ?? null,
    cost_usd: r?.telemetry.cost_usd ?? null,
    ...tokens,
    wire: r?.wire ?? null,
    warnings,
    containment: r?.containment ?? null,
  };
}
