import type { OrchestratorContext } from '../host/context';
import type { Journal } from '../store/journal';
import { CitadelError } from '../../shared/errors';
import { commitTime, findMergeCommit, mergeCommitHolds } from './find-merge-commit';
import { landingJournalState } from './landing-journal';
import { recordBlocked, recordLanded, recordsJournal, storedLanding } from './record-landing';
import { assertBoundTarget } from './target-identity';
import { withLockedFork } from './with-locked-fork';

export type LandingReconciliation =
  | { readonly outcome: 'none' }
  | { readonly outcome: 'landed'; readonly merge_commit: string }
  | { readonly outcome: 'blocked'; readonly reason: 'landing_in_doubt' };

/**
 * For `citadel fork resume` (decisions D11). A landing with an intent and no result is settled by
 * looking for its merge commit: found, the landing is recorded; not found, the fork is blocked and
 * the merge is never retried on its own. A recorded result whose fork state lags is completed.
 */
export async function reconcileLanding(ctx: OrchestratorContext, forkId: string, repo: string): Promise<LandingReconciliation> {
  return withLockedFork(ctx, forkId, (journal) => settleLanding(ctx, journal, repo));
}

/** `reconcileLanding` for a caller that already holds the fork lock. */
export async function settleLanding(ctx: OrchestratorContext, journal: Journal, repo: string): Promise<LandingReconciliation> {
  const state = landingJournalState(journal);
  if (state.kind === 'none') return { outcome: 'none' };
  // A clone holds the same commits: a merge found (or forged) there proves nothing about the bound target.
  const fork = await ctx.store.readRecord(state.intent.fork_id);
  await assertBoundTarget(ctx.store, fork, repo);
  if (state.kind === 'landed') {
    // Recorded already: landing.json (written last) is exactly this landing, and the fork says landed.
    if (fork.state === 'landed' && recordsJournal(await storedLanding(ctx.store, fork.fork_id), state)) return { outcome: 'landed', merge_commit: state.outcome.merge_commit };
    // Only the journal says so: a landing counts when its merge commit is really in the target.
    if (!(await mergeCommitHolds(repo, state.intent, state.outcome.merge_commit))) {
      const message = `the journal records landing ${state.key} with merge commit ${state.outcome.merge_commit}, which is not a merge of ${state.intent.expected_parents.join(' and ')} on ${state.intent.target_branch} in the target`;
      throw new CitadelError('FORK_RECORD_INVALID', message, { details: { fork_id: state.intent.fork_id, key: state.key, merge_commit: state.outcome.merge_commit } });
    }
    await recordLanded(ctx, state.intent, state.outcome);
    return { outcome: 'landed', merge_commit: state.outcome.merge_commit };
  }
  const merge = await findMergeCommit(repo, state.intent);
  if (merge === null) {
    await recordBlocked(ctx, state.intent);
    return { outcome: 'blocked', reason: 'landing_in_doubt' };
  }
  const outcome = { merge_commit: merge, landed_at: await commitTime(repo, merge), reconciled: true };
  await journal.result('landing.merge', state.key, 'done', outcome);
  await recordLanded(ctx, state.intent, outcome);
  return { outcome: 'landed', merge_commit: merge };
}
