import type { FailureCode } from '../runtime/telemetry';
import type { BranchRecord, ForkState } from './fork-record';

/**
 * Failure codes that still leave a verified, comparable result: the runtime finished inside the
 * contract and the verifier judged the diff. Every other failure means there is nothing to compare;
 * a protected-path change broke the shared policy, so that branch no longer satisfies the contract.
 */
const COMPARABLE_FAILURES: ReadonlySet<FailureCode> = new Set(['VERIFIER_FAILED']);

/** A branch whose evidence can stand beside another's (issue 4 adds re-verification from disk). */
export function isComparableBranch(branch: Pick<BranchRecord, 'state' | 'failure_code'>): boolean {
  if (branch.state === 'passed') return branch.failure_code === null;
  return branch.state === 'failed' && branch.failure_code !== null && COMPARABLE_FAILURES.has(branch.failure_code);
}

/**
 * The parent state from its branches, for the execution phase (pending → running → ready, blocked
 * or failed). `selected` and `landed` are set by their own operator actions, never derived here.
 */
export function executionState(branches: readonly Pick<BranchRecord, 'state' | 'failure_code'>[]): ForkState {
  if (branches.every((b) => b.state === 'pending')) return 'pending';
  if (branches.some((b) => b.state === 'pending' || b.state === 'running')) return 'running';
  if (branches.filter(isComparableBranch).length >= 2) return 'ready';
  if (branches.some((b) => b.state === 'blocked' || b.state === 'unknown')) return 'blocked';
  return 'failed';
}
