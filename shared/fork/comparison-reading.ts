import type { Comparison } from './compare';

/**
 * How a comparison reads to an operator (issue 29), without changing the comparison itself (its
 * outcome is recorded with an against-evidence selection): the engine's outcome, except where its
 * name alone would mislead.
 * - `all_failed`: every branch has a verified result and every one is a failure (its verifier's, or
 *   an earlier one); the engine says `tie` (no comparable branch passed) or `insufficient-evidence`,
 *   but what it means is that nothing passed.
 * - `incomplete`: too few comparable branches because some results are not collected yet (a branch
 *   still runs, or waits for the operator), not because the evidence is bad.
 */
export interface ComparisonReading {
  readonly kind: Comparison['outcome'] | 'all_failed' | 'incomplete';
  /** Branches with no collected result (their verification says `not_collected`). */
  readonly uncollected: string[];
  /** How many branches failed their verifier, and how many failed before a verifier judged them (stopped, out of budget, a policy refusal…). */
  readonly failed: { readonly verifier: number; readonly before_verifier: number };
}

export function comparisonReading(comparison: Pick<Comparison, 'outcome' | 'branches'>): ComparisonReading {
  const { outcome, branches } = comparison;
  const uncollected = branches.filter((b) => b.reasons.includes('not_collected')).map((b) => b.branch_id);
  const verifier = branches.filter((b) => b.failure_code === 'VERIFIER_FAILED').length;
  const failed = { verifier, before_verifier: branches.length - verifier };
  const allFailed = branches.length > 0 && branches.every((b) => b.receipt_verified && b.status === 'failed');
  if (outcome !== 'recommend' && allFailed) return { kind: 'all_failed', uncollected, failed };
  if (outcome === 'insufficient-evidence' && uncollected.length > 0) return { kind: 'incomplete', uncollected, failed };
  return { kind: outcome, uncollected, failed };
}
