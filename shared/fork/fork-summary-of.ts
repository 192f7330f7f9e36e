import type { ForkStatus } from './fork-record';
import type { ForkListing, ForkProblem, ForkSummary } from './fork-summary';

// Apart from fork-summary.ts, which builds the schemas, so the renderer's first page can project a
// fork's status into its list entry without loading zod.

/** A fork's list entry, from its `fork status`. */
export function forkSummaryOf(status: ForkStatus): ForkSummary {
  return {
    fork_id: status.fork_id,
    demo: status.demo,
    state: status.state,
    revision: status.revision,
    created_at: status.created_at,
    title: status.title,
    title_standing: status.title_standing,
    repo_name: status.repo_name,
    branches: status.branches.map((b) => ({ branch_id: b.branch_id, profile_id: b.profile_id, state: b.state, failure_code: b.failure_code, blocked_reason: b.blocked_reason })),
  };
}

/** A fork as the fork list carries it: its summary, or its problem as it stands. */
export function forkListEntryOf(listing: ForkListing): ForkSummary | ForkProblem {
  return 'problem' in listing ? listing : forkSummaryOf(listing);
}
