import { CitadelError, type ErrorCode } from '../../shared/errors';
import type { LandingCheck, LandingResult } from '../../shared/fork/landing';
import { mergeNoFf } from '../git/merge';
import type { Journal } from '../store/journal';
import { assessLanding } from './assess-landing';
import { commitTime } from './find-merge-commit';
import { readIssuedPlan } from './issued-plan';
import type { LandingInput } from './landing-input';
import { landingJournalState, landingKey, type LandingIntent } from './landing-journal';
import { settleLanding } from './reconcile-landing';
import { assertBoundTarget } from './target-identity';
import { recordLanded } from './record-landing';
import { withLockedFork } from './with-locked-fork';

// mergeNoFf's refusals before it merges, and a conflict it aborted: the target is as it was.
const CLEAN_FAILURES: ReadonlySet<ErrorCode> = new Set(['REPOSITORY_INVALID', 'REPOSITORY_DIRTY', 'GIT_REF_INVALID', 'MERGE_UP_TO_DATE', 'MERGE_CONFLICT']);

/**
 * `citadel fork land ID --confirm TOKEN` (decisions D10): under the fork lock, re-checks everything
 * and, only when every check passes and the token still matches, merges the selected branch into
 * the target's current branch with a local `git merge --no-ff`, journaled as the nonrepeatable
 * `landing.merge`. Never pushes, tags, publishes or deploys.
 */
export async function land(input: LandingInput, confirmToken: string): Promise<LandingResult> {
  const { ctx } = input;
  return withLockedFork(ctx, input.forkId, async (journal) => {
    const landing = landingJournalState(journal);
    if (landing.kind === 'in-doubt') {
      throw new CitadelError('LANDING_IN_DOUBT', 'an earlier landing started and its outcome is unrecorded; `citadel fork resume` reconciles it', {
        details: { fork_id: input.forkId, key: landing.key },
      });
    }
    // Before any check: a landing into a repository other than the bound one is its own refusal.
    await assertBoundTarget(ctx.store, await ctx.store.readRecord(input.forkId), input.repo);
    const issued = await readIssuedPlan(ctx.store, input.forkId);
    const { checks, plan } = await assessLanding(input, landing, { token: confirmToken, issued });
    refuseFailedChecks(checks);
    // Passing checks imply these (selection_current fails for a landed fork); the types cannot say so.
    if (landing.kind !== 'none' || plan.target_branch === null || plan.target_repo_head === null || plan.selected_branch_head === null) {
      throw new CitadelError('INTERNAL_ERROR', 'every landing check passed for a landed fork or unknown heads');
    }

    const key = landingKey(input.selection, landing.attempts + 1);
    const intent: LandingIntent = {
      fork_id: plan.fork_id,
      branch_id: plan.branch_id,
      git_branch: plan.git_branch,
      fork_revision: input.selection.fork_revision,
      selection_digest: plan.selection_digest,
      target_branch: plan.target_branch,
      expected_parents: [plan.target_repo_head, plan.selected_branch_head],
    };
    await journal.intent('landing.merge', key, intent);
    let mergeCommit: string;
    try {
      mergeCommit = await mergeNoFf(input.repo, intent.git_branch, `Citadel: land ${intent.branch_id} of ${intent.fork_id}`);
    } catch (error) {
      return settleFailedMerge(input, journal, key, error);
    }
    const outcome = { merge_commit: mergeCommit, landed_at: await commitTime(input.repo, mergeCommit), reconciled: false };
    await journal.result('landing.merge', key, 'done', outcome);
    await recordLanded(ctx, intent, outcome);
    return { landed: true, merge_commit: mergeCommit };
  });
}

/** Refuses naming every failing check; a token that is the only problem gets its own code. */
function refuseFailedChecks(checks: readonly LandingCheck[]): void {
  const failed = checks.filter((c) => !c.ok);
  if (failed.length === 0) return;
  const tokenOnly = failed.every((c) => c.name === 'confirmation_token');
  const list = failed.map((c) => `${c.name} (${c.reason ?? 'failed'})`).join('; ');
  throw new CitadelError(tokenOnly ? 'LANDING_TOKEN_MISMATCH' : 'LANDING_PRECONDITION_FAILED', `landing refused: ${list}`, {
    details: { checks: [...checks], failed: failed.map((c) => c.name) },
  });
}

/**
 * After a merge threw with its intent durable. A clean refusal or an aborted conflict is journaled
 * as failed and rethrown; any other failure leaves the outcome unknown, so it is settled at once as
 * after a crash: the merge commit found means landed, otherwise the fork blocks.
 */
async function settleFailedMerge(input: LandingInput, journal: Journal, key: string, error: unknown): Promise<LandingResult> {
  if (error instanceof CitadelError && CLEAN_FAILURES.has(error.code)) {
    await journal.result('landing.merge', key, 'failed', { error_code: error.code });
    throw error;
  }
  const settled = await settleLanding(input.ctx, journal, input.repo);
  if (settled.outcome === 'landed') return { landed: true, merge_commit: settled.merge_commit };
  throw new CitadelError('LANDING_IN_DOUBT', 'the merge failed part-way; the fork is blocked until an operator inspects the target', {
    details: { fork_id: input.forkId, key },
    cause: error,
  });
}
