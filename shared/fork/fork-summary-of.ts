import type { ForkState, ForkStatus } from './fork-record';
import type { ForkListing, ForkProblem, ForkSummary } from './fork-summary';
import { forkOutcomeOf, needsDecision } from './fork-triage';

// Apart from fork-summary.ts, which builds the schemas, so the renderer's first page can project a
// fork's status into its list entry without loading zod.

/** A fork's list entry, from its `fork status` and since when it runs (null unless running). */
export function forkSummaryOf(status: ForkStatus, runningSince: string | null): ForkSummary {
  const branches = status.branches.map((b) => ({
    branch_id: b.branch_id,
    profile_id: b.profile_id,
    state: b.state,
    failure_code: b.failure_code,
    blocked_reason: b.blocked_reason,
    blocked_code: b.blocked_code,
  }));
  return {
    fork_id: status.fork_id,
    demo: status.demo,
    state: status.state,
    revision: status.revision,
    created_at: status.created_at,
    title: status.title,
    title_standing: status.title_standing,
    repo_name: status.repo_name,
    branches,
    running_since: status.state === 'running' ? runningSince : null,
    parent: status.lineage === null ? null : { fork_id: status.lineage.parent_fork_id, branch_id: status.lineage.parent_branch_id },
    needs_decision: needsDecision({ state: status.state, branches }),
    outcome: forkOutcomeOf({ state: status.state, branches }),
  };
}

/** A list entry after a fork_state event: the new state, and the triage it changes. */
export function restated(summary: ForkSummary, state: ForkState, revision: number): ForkSummary {
  const fork = { state, branches: summary.branches };
  return { ...summary, state, revision, running_since: state === 'running' ? summary.running_since : null, needs_decision: needsDecision(fork), outcome: forkOutcomeOf(fork) };
}

/** A fork as the fork list carries it: its summary, or its problem as it stands. */
export function forkListEntryOf(listing: ForkListing): ForkSummary | ForkProblem {
  return 'problem' in listing ? listing : forkSummaryOf(listing, listing.running_since);
}
