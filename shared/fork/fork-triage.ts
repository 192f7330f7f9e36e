import type { BranchRecord, BranchState, ForkState } from './fork-record';
import { isComparableBranch } from './fork-state';

/**
 * Triage (issue 29): which forks wait for the operator's decision, and what a settled fork's
 * result looks like at a glance. Zod-free, so Mission Control's first page can apply it when an
 * event moves a row; the fork list's summary carries what it answers (fork-summary-of.ts).
 */

/** What a settled fork's branches add up to, read from its record: Compare re-verifies every receipt. */
export const FORK_OUTCOME_KINDS = [
  /** Two or more comparable branches, exactly one of which passed. */
  'recommend',
  /** Two or more branches passed: the evidence does not choose between them. */
  'tie',
  /** One branch passed and no other is comparable: there is nothing to compare it with. */
  'one_passed',
  /** No branch passed, and none waits for the operator: every branch failed (its verifier, or its run). */
  'all_failed',
  /** No branch passed, and some are blocked or in doubt: resolving them comes first. */
  'blocked',
] as const;
export type ForkOutcomeKind = (typeof FORK_OUTCOME_KINDS)[number];

export interface ForkOutcome {
  readonly kind: ForkOutcomeKind;
  /** recommend, one_passed: the passing branch; tie: every passing branch; blocked: the blocked or unknown branches; all_failed: none. */
  readonly branch_ids: string[];
}

type TriageBranch = Pick<BranchRecord, 'branch_id' | 'state' | 'failure_code'>;
interface TriageFork {
  readonly state: ForkState;
  readonly branches: readonly TriageBranch[];
}

/** The fork states in which no selection has been made yet and none is under way. */
const UNDECIDED: ReadonlySet<ForkState> = new Set<ForkState>(['ready', 'blocked', 'failed']);

/** No branch runs or waits to run: nothing more arrives without an operator. */
export function isSettled(branches: readonly Pick<BranchRecord, 'state'>[]): boolean {
  return branches.every((b) => b.state !== 'pending' && b.state !== 'running');
}

/**
 * Branch states under which nothing is selected (selectability.ts refuses them): a branch that may
 * still change its result, an unknown one included (only a resume learns how it ended).
 */
export const UNSETTLED_BRANCH_STATES: ReadonlySet<BranchState> = new Set<BranchState>(['pending', 'running', 'unknown']);

/**
 * The one rule of "needs your decision": a settled fork with no selection yet and at least one
 * comparable branch, so a selection can be made (acknowledged against the evidence where the
 * comparison does not recommend it).
 */
export function needsDecision(fork: TriageFork): boolean {
  return UNDECIDED.has(fork.state) && fork.branches.every((b) => !UNSETTLED_BRANCH_STATES.has(b.state)) && fork.branches.some(isComparableBranch);
}

/**
 * A settled, undecided fork's outcome by the comparison's own ranking (a pass beats a verifier
 * failure; a recommendation needs two comparable branches), from the record's branch states; null
 * while a branch runs or once a selection exists.
 */
export function forkOutcomeOf(fork: TriageFork): ForkOutcome | null {
  if (!UNDECIDED.has(fork.state) || !isSettled(fork.branches)) return null;
  const comparable = fork.branches.filter(isComparableBranch);
  const passed = comparable.filter((b) => b.state === 'passed').map((b) => b.branch_id);
  if (passed.length > 1) return { kind: 'tie', branch_ids: passed };
  if (passed.length === 1) return { kind: comparable.length >= 2 ? 'recommend' : 'one_passed', branch_ids: passed };
  const waiting = fork.branches.filter((b) => b.state === 'blocked' || b.state === 'unknown').map((b) => b.branch_id);
  return waiting.length > 0 ? { kind: 'blocked', branch_ids: waiting } : { kind: 'all_failed', branch_ids: [] };
}
