import { z } from 'zod';
import type { ComparedBranch, Comparison } from './compare';
import { BranchIdSchema } from './ids';

/**
 * Deciding safely (issue 14, item 4): what the comparison said about a branch when the operator
 * selected it against that evidence. One rule, here, for the orchestrator (which enforces it) and
 * Mission Control (which shows it before the request is sent).
 */
export const SelectionEvidenceSchema = z.strictObject({
  outcome: z.enum(['recommend', 'tie', 'insufficient-evidence']),
  recommended_branch_id: BranchIdSchema.nullable(),
  verifier_status: z.enum(['passed', 'failed', 'not_run', 'unknown']),
  status: z.enum(['passed', 'failed']).nullable(),
  failure_code: z.string().max(128).nullable(),
  required_evidence: z.strictObject({ required: z.number().int().nonnegative(), present: z.number().int().nonnegative() }),
});
export type SelectionEvidence = z.infer<typeof SelectionEvidenceSchema>;

/** Part of the signed selection record: the evidence as it stood, and that the operator acknowledged selecting against it. */
export const AgainstEvidenceSchema = z.strictObject({ acknowledged: z.literal(true), evidence: SelectionEvidenceSchema });
export type AgainstEvidence = z.infer<typeof AgainstEvidenceSchema>;

/** A landing's warning: the selected branch and the acknowledgement its selection records. */
export const SelectedAgainstEvidenceSchema = AgainstEvidenceSchema.extend({ branch_id: BranchIdSchema });
export type SelectedAgainstEvidence = z.infer<typeof SelectedAgainstEvidenceSchema>;

/** The warning of a selection (or landing plan) made against the evidence; null when it agreed with it. */
export function selectedAgainstEvidence(selection: { readonly branch_id: string; readonly against_evidence?: AgainstEvidence | undefined }): SelectedAgainstEvidence | null {
  return selection.against_evidence === undefined ? null : { branch_id: selection.branch_id, ...selection.against_evidence };
}

/** What the rule reads of a comparison (the reply of `compareFork`, or the orchestrator's own). */
export type ComparisonFacts = Pick<Comparison, 'outcome' | 'recommended_branch_id'> & { readonly branches: readonly ComparedBranch[] };

const proven = (b: SelectionEvidence): boolean => b.verifier_status === 'passed' && b.status === 'passed' && b.required_evidence.present >= b.required_evidence.required;

/**
 * What the evidence says against selecting `branchId`, or null when selecting it agrees with the
 * evidence: it is the recommendation, or the comparison found a tie and its verifier passed with
 * every required step. With fewer than two comparable branches (`insufficient-evidence`, as when
 * the others failed or were stopped) nothing was compared, so every branch needs the
 * acknowledgement. A branch the comparison does not list is null too: the caller refuses it as unknown.
 */
export function evidenceAgainst(comparison: ComparisonFacts, branchId: string): SelectionEvidence | null {
  const branch = comparison.branches.find((b) => b.branch_id === branchId);
  if (branch === undefined) return null;
  const evidence: SelectionEvidence = {
    outcome: comparison.outcome,
    recommended_branch_id: comparison.recommended_branch_id,
    verifier_status: branch.verifier_status,
    status: branch.status,
    failure_code: branch.failure_code,
    required_evidence: { ...branch.required_evidence },
  };
  const supported = evidence.recommended_branch_id === branchId || evidence.outcome === 'tie';
  return supported && proven(evidence) ? null : evidence;
}

/** The evidence in plain words, e.g. "branch-codex's verifier failed (VERIFIER_FAILED); the comparison recommends branch-claude". */
export function describeEvidence(branchId: string, evidence: SelectionEvidence): string {
  const parts: string[] = [];
  const code = evidence.failure_code === null ? '' : ` (${evidence.failure_code})`;
  const { required, present } = evidence.required_evidence;
  if (evidence.verifier_status === 'failed') parts.push(`${branchId}'s verifier failed${code}`);
  else if (evidence.verifier_status === 'not_run') parts.push(`${branchId}'s verifier did not run${code}`);
  else if (evidence.verifier_status === 'unknown') parts.push(`${branchId} has no verifier proof${code}`);
  else if (evidence.status !== 'passed') parts.push(`${branchId} did not pass${code}`);
  else if (present < required) parts.push(`${branchId}'s verifier ran only ${present} of ${required} required steps`);
  else if (evidence.outcome === 'insufficient-evidence') parts.push(`${branchId}'s verifier passed`);
  if (evidence.recommended_branch_id === branchId) parts.push(`the comparison recommends ${branchId}`);
  else if (evidence.recommended_branch_id !== null) parts.push(`the comparison recommends ${evidence.recommended_branch_id}`);
  else parts.push(evidence.outcome === 'tie' ? 'the comparison recommends no branch (a tie)' : 'the comparison recommends no branch (fewer than two branches have a verified, comparable result, so none was compared)');
  return parts.join('; ');
}
