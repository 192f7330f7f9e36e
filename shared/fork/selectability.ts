import type { BranchState, ForkState } from './fork-record';
import { UNSETTLED_BRANCH_STATES } from './fork-triage';
import { evidenceAgainst, type ComparisonFacts, type SelectionEvidence } from './selection-evidence';

/**
 * Deciding from any settled fork (issue 29, item 1): whether a branch can be selected now, and in
 * plain words why not. One rule, here, for the orchestrator (which enforces it) and the Select view
 * (which shows it before anything is sent). A fork is decided once no branch can still change:
 * from `ready`, and also from `blocked` or `failed` when one of its branches has a verified,
 * comparable result; what the comparison did not recommend needs the against-evidence acknowledgement.
 */

/** What the rule reads of a fork: a fork record or `fork status` alike. */
export interface SelectableFork {
  readonly state: ForkState;
  readonly branches: readonly { readonly branch_id: string; readonly state: BranchState }[];
}

/** Why selecting is refused, as the error the orchestrator throws. */
export interface SelectionRefusal {
  readonly code: 'FORK_STATE_CONFLICT' | 'BRANCH_NOT_FOUND' | 'SELECTION_REFUSED';
  readonly message: string;
  readonly details: SelectionRefusalDetails;
}
export type SelectionRefusalDetails = { readonly state: ForkState; readonly unsettled?: string[]; readonly reasons?: string[] };

/** The branch can be selected; `against` is what the evidence says against it (null: it agrees, no acknowledgement). */
export type Selectability = { readonly selectable: true; readonly against: SelectionEvidence | null } | { readonly selectable: false; readonly refusal: SelectionRefusal };

const DECIDABLE: ReadonlySet<ForkState> = new Set<ForkState>(['ready', 'selected', 'blocked', 'failed']);

const FORK_STATE_WORDS: Partial<Record<ForkState, string>> = {
  pending: 'the fork has not started yet; select once every branch has settled',
  running: 'the fork is still running; select once every branch has settled',
  landed: 'the fork has already landed; a landed fork is not selected from again',
  unknown: "the fork's state is unknown; it cannot be selected from until it is known",
};

/** Why no branch of `fork` can be selected now; null when every branch has settled and the fork is decidable. */
export function forkSelectionRefusal(fork: SelectableFork): SelectionRefusal | null {
  const unsettled = fork.branches.filter((b) => UNSETTLED_BRANCH_STATES.has(b.state));
  if (unsettled.length > 0) {
    return {
      code: 'FORK_STATE_CONFLICT',
      message: `${unsettledWords(unsettled)}; select once every branch has settled`,
      details: { state: fork.state, unsettled: unsettled.map((b) => b.branch_id) },
    };
  }
  if (DECIDABLE.has(fork.state)) return null;
  return { code: 'FORK_STATE_CONFLICT', message: FORK_STATE_WORDS[fork.state] ?? `a ${fork.state} fork cannot be selected from`, details: { state: fork.state } };
}

/**
 * Whether `branchId` can be selected now from `fork`, judged against a comparison of freshly
 * verified evidence: the fork must be settled, and the branch comparable (a verified result the
 * verifier judged). A branch the comparison does not list is unknown.
 */
export function branchSelectability(fork: SelectableFork, comparison: ComparisonFacts, branchId: string): Selectability {
  const forkRefusal = forkSelectionRefusal(fork);
  if (forkRefusal !== null) return { selectable: false, refusal: forkRefusal };
  const branch = comparison.branches.find((b) => b.branch_id === branchId);
  if (branch === undefined) return { selectable: false, refusal: { code: 'BRANCH_NOT_FOUND', message: `the fork has no branch ${branchId}`, details: { state: fork.state } } };
  if (!branch.comparable) {
    const reasons = [...branch.reasons];
    const why = branch.receipt_verified
      ? `it ended ${branch.failure_code ?? 'without a result'}, which leaves no result the verifier judged`
      : `it has no verified result (${reasons.join(', ') || 'not collected'})`;
    return { selectable: false, refusal: { code: 'SELECTION_REFUSED', message: `${branchId} cannot be selected: ${why}`, details: { state: fork.state, reasons } } };
  }
  return { selectable: true, against: evidenceAgainst(comparison, branchId) };
}

function unsettledWords(branches: readonly { readonly branch_id: string; readonly state: BranchState }[]): string {
  const ids = (state: BranchState): string[] => branches.filter((b) => b.state === state).map((b) => b.branch_id);
  const list = (names: readonly string[]): string => (names.length < 3 ? names.join(' and ') : `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`);
  const running = ids('running');
  const pending = ids('pending');
  const unknown = ids('unknown');
  const parts: string[] = [];
  if (running.length > 0) parts.push(`${list(running)} ${running.length === 1 ? 'is' : 'are'} still running`);
  if (pending.length > 0) parts.push(`${list(pending)} ${pending.length === 1 ? 'has' : 'have'} not run yet`);
  if (unknown.length > 0) parts.push(`the outcome of ${list(unknown)} is not known yet`);
  return parts.join('; ');
}
