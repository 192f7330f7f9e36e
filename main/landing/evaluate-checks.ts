import type { ForkRecord } from '../../shared/fork/fork-record';
import type { Lineage } from '../../shared/fork/lineage';
import { gitBranchName } from '../../shared/fork/ids';
import {
  landingToken,
  LandingTokenSchema,
  selectedRevision,
  selectionDigest,
  type IssuedPlan,
  type LandingCheck,
  type LandingCheckName,
  type LandingChecksResult,
  type LandingPlan,
  type SelectionRecord,
} from '../../shared/fork/landing';
import type { ReceiptVerdict } from './landing-input';
import type { LandingJournalState } from './landing-journal';
import type { TargetFacts } from './target-facts';

/** Everything the checks judge, gathered beforehand so that judging is pure. */
export interface LandingFacts {
  /** The latest record, read under the fork lock. */
  readonly record: ForkRecord;
  readonly selection: SelectionRecord;
  /** See LandingInput.selectionUnsigned. */
  readonly selectionUnsigned: boolean;
  readonly landing: LandingJournalState;
  readonly repo: string;
  readonly target: TargetFacts;
  readonly receipt: ReceiptVerdict;
  /** A follow-up's lineage, from its verified contract (issue 32); null for a first fork. */
  readonly lineage: Lineage | null;
}

/** `--confirm TOKEN`, with the last plan a token was issued for (null when none was). */
export interface Confirmation {
  readonly token: string;
  readonly issued: IssuedPlan | null;
}

const UNCHECKABLE = 'cannot be checked: the target repository is unusable';

/**
 * Judges every landing precondition, one by one and in a fixed order (decisions D10). The token is
 * returned only when every check passed.
 */
export function evaluateChecks(facts: LandingFacts, confirm: Confirmation | null): LandingChecksResult {
  const { record, selection, target } = facts;
  const usable = target.usable ? target : null;
  const plan: LandingPlan = {
    fork_id: record.fork_id,
    // The revision the journaled selection is current at, not fork.json's unsigned counter:
    // selection_current refuses any record at another revision, so they agree whenever a token is issued.
    fork_revision: selectedRevision(selection),
    branch_id: selection.branch_id,
    git_branch: gitBranchName(record.fork_id, selection.branch_id),
    selection_digest: selectionDigest(selection),
    base_revision: record.base_revision,
    target_repo: facts.repo,
    target_branch: usable?.info.branch ?? null,
    target_repo_head: usable?.info.head ?? null,
    selected_branch_head: usable?.selectedBranchHead ?? null,
    ...(selection.against_evidence === undefined ? {} : { against_evidence: selection.against_evidence }),
    ...(facts.lineage === null
      ? {}
      : {
          continues: {
            parent_fork_id: facts.lineage.parent_fork_id,
            parent_branch_id: facts.lineage.parent_branch_id,
            parent_result_commit: facts.lineage.parent_result_commit,
            in_target: usable?.baseInTarget ?? null,
          },
        }),
  };
  const candidate = tokenFor(plan);
  const checks: LandingCheck[] = [
    selectionCurrent(facts),
    check('selected_branch_exists', branchProblem(facts, plan.git_branch)),
    check('base_revision_exists', usable ? (usable.baseRevisionPresent ? null : `the base revision ${record.base_revision} no longer exists in the target`) : UNCHECKABLE),
    check('target_contained', target.usable ? null : target.reason),
    check('target_clean', usable ? (usable.info.dirty ? 'the target has uncommitted changes (staged, unstaged or untracked)' : null) : UNCHECKABLE),
    check('target_on_branch', usable ? (usable.info.branch === null ? 'the target HEAD is detached; check out the branch to land into' : null) : UNCHECKABLE),
    headConfirmed(plan.target_repo_head, confirm),
    facts.receipt.ok ? { name: 'receipt_verified', ok: true, reason: facts.receipt.reason } : check('receipt_verified', facts.receipt.reason ?? 'the receipt did not verify'),
    ...(confirm ? [check('confirmation_token', tokenProblem(plan, candidate, confirm))] : []),
  ];
  return { checks, token: checks.every((c) => c.ok) ? candidate : null, plan };
}

const check = (name: LandingCheckName, problem: string | null): LandingCheck => ({ name, ok: problem === null, reason: problem });

function tokenFor(plan: LandingPlan): string | null {
  if (plan.target_repo_head === null || plan.selected_branch_head === null) return null;
  return landingToken({
    fork_id: plan.fork_id,
    fork_revision: plan.fork_revision,
    selection_digest: plan.selection_digest,
    target_repo_head: plan.target_repo_head,
    selected_branch_head: plan.selected_branch_head,
  });
}

/** The rule: the selection is for this fork and nothing happened since it was recorded (see SelectionRecordSchema). */
/** A passing selection_current says when the selection is unsigned (made before selections were signed). */
function selectionCurrent(facts: LandingFacts): LandingCheck {
  const problem = selectionProblem(facts);
  if (problem !== null || !facts.selectionUnsigned) return check('selection_current', problem);
  return { name: 'selection_current', ok: true, reason: 'an unsigned selection, made before selections were signed: it stands on the journal alone' };
}

function selectionProblem({ record, selection, landing }: LandingFacts): string | null {
  if (selection.fork_id !== record.fork_id) return `the selection belongs to ${selection.fork_id}, not ${record.fork_id}`;
  if (landing.kind === 'landed') return `the fork has already landed (merge commit ${landing.outcome.merge_commit})`;
  if (landing.kind === 'in-doubt') return 'a landing attempt is in doubt (started, outcome unrecorded); resuming the fork reconciles it';
  if (record.state === 'landed') return 'the fork has already landed';
  if (record.state !== 'selected') return `the fork's state is ${record.state}, not selected`;
  const expected = selectedRevision(selection);
  if (record.revision !== expected) {
    return `the selection was made at revision ${selection.fork_revision} and is current only at revision ${expected}; the fork is now at revision ${record.revision}`;
  }
  if (!record.branches.some((b) => b.branch_id === selection.branch_id)) return `the fork has no branch ${selection.branch_id}`;
  return null;
}

function branchProblem({ record, selection, target }: LandingFacts, gitBranch: string): string | null {
  const branch = record.branches.find((b) => b.branch_id === selection.branch_id);
  if (!branch) return `the fork has no branch ${selection.branch_id}`;
  // Only the fork's own branch is ever merged, whatever a stored record names.
  if (branch.git_branch !== gitBranch) return `the record names git branch ${branch.git_branch}, not the fork's ${gitBranch}`;
  if (!target.usable) return UNCHECKABLE;
  if (target.selectedBranchHead === null) return `branch ${gitBranch} no longer exists in the target`;
  if (target.branchDescendsFromBase === false) return `branch ${gitBranch} no longer descends from the base revision ${record.base_revision}`;
  return null;
}

/** Informational without `--confirm`; with it, the target HEAD must still be the one in the last issued plan. */
function headConfirmed(head: string | null, confirm: Confirmation | null): LandingCheck {
  if (!confirm) {
    const reason = head === null ? 'informational: the target HEAD is unknown' : `informational: the confirmation binds target HEAD ${head}; landing is refused if it moves`;
    return { name: 'target_head_confirmed', ok: true, reason };
  }
  const issued = confirm.issued?.plan.target_repo_head ?? null;
  if (issued === null) return check('target_head_confirmed', 'no landing plan was issued; review the landing checks first, which issues one');
  if (head !== issued) return check('target_head_confirmed', `the target HEAD moved from ${issued} to ${head ?? 'an unknown commit'} since the token was issued`);
  return { name: 'target_head_confirmed', ok: true, reason: null };
}

function tokenProblem(plan: LandingPlan, candidate: string | null, confirm: Confirmation): string | null {
  if (!LandingTokenSchema.safeParse(confirm.token).success) return 'a confirmation token is 12 lowercase hex digits';
  if (candidate === null) return 'no token can match: the target HEAD or the selected branch head is unknown';
  if (candidate === confirm.token) return null;
  // When the token is the one last issued, say which bound fact changed since.
  const issued = confirm.issued?.token === confirm.token ? confirm.issued.plan : null;
  const bound = ['fork_revision', 'selection_digest', 'target_repo_head', 'selected_branch_head'] as const;
  const changed = issued ? bound.filter((field) => issued[field] !== plan[field]).map((field) => `${field} ${String(issued[field])} → ${String(plan[field])}`) : [];
  if (changed.length > 0) return `the facts the token was issued for have changed: ${changed.join(', ')}`;
  return 'the token does not match the current landing plan; review the landing checks again for a new one';
}
