/**
 * `landing.merge` is nonrepeatable (decisions D11). A crash between its intent and its result is
 * settled by looking for the merge commit: found, the landing is recorded; not found, the fork is
 * blocked and nothing merges again on its own. A cleanly failed attempt (a conflict) is journaled
 * as failed, leaves the target as it was, and a later attempt gets its own journal key.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { land } from '../../../main/landing/land';
import { landingChecks } from '../../../main/landing/landing-checks';
import { landingKey, type LandingIntent } from '../../../main/landing/landing-journal';
import { reconcileLanding } from '../../../main/landing/reconcile-landing';
import { Journal } from '../../../main/store/journal';
import { selectionDigest } from '../../../shared/fork/landing';
import { useTempDirs } from '../../support/temp-dir';
import { commitFiles, git, makeRepo } from '../git/git-fixture';
import { fakeFork, targetState, type FakeFork } from './landing-fixture';

const tempDir = useTempDirs();

async function landable(): Promise<{ fork: FakeFork; token: string }> {
  const base = realpathSync(tempDir('citadel-land-rec-'));
  const fork = await fakeFork(base, makeRepo(base));
  const { token } = await landingChecks(fork.input());
  if (token === null) throw new Error('the fixture fork should be landable');
  return { fork, token };
}

/** What `land` journals before merging, written as a process that then died would have left it. */
async function writeIntent(fork: FakeFork, attempt = 1): Promise<LandingIntent> {
  const intent: LandingIntent = {
    fork_id: fork.forkId,
    branch_id: fork.selection.branch_id,
    git_branch: fork.gitBranch,
    fork_revision: fork.selection.fork_revision,
    selection_digest: selectionDigest(fork.selection),
    target_branch: 'main',
    expected_parents: [git(fork.repo, 'rev-parse', 'HEAD'), fork.selectedHead],
  };
  const journal = await Journal.open(fork.ctx.store.file(fork.forkId, 'journal'));
  await journal.intent('landing.merge', landingKey(fork.selection, attempt), intent);
  return intent;
}

const landingLines = (fork: FakeFork) => fork.journalLines().filter((r) => r.effect === 'landing.merge');

describe('a landing interrupted between intent and result', () => {
  it('is reconciled to landed when its merge commit is on the target branch', async () => {
    const { fork, token } = await landable();
    const headBefore = git(fork.repo, 'rev-parse', 'HEAD');
    await writeIntent(fork);
    git(fork.repo, 'merge', '--quiet', '--no-ff', '--no-edit', fork.gitBranch);
    const merge = git(fork.repo, 'rev-parse', 'HEAD');
    // The operator went on working; the merge is no longer HEAD but is still on the branch.
    commitFiles(fork.repo, 'later work', { 'later.txt': 'later\n' });
    const after = targetState(fork.repo);

    // Until reconciled, nothing lands again and the checks say why.
    await expect(land(fork.input(), token)).rejects.toMatchObject({ code: 'LANDING_IN_DOUBT' });
    const checks = await landingChecks(fork.input());
    expect(checks.token).toBeNull();
    expect(checks.checks.find((c) => c.name === 'selection_current')?.reason).toMatch(/in doubt/);

    expect(await reconcileLanding(fork.ctx, fork.forkId, fork.repo)).toEqual({ outcome: 'landed', merge_commit: merge });
    expect(await fork.record()).toMatchObject({ state: 'landed', revision: 2 });
    expect(JSON.parse(readFileSync(fork.forkFile('landing.json'), 'utf8'))).toMatchObject({
      status: 'landed',
      merge_commit: merge,
      target_head_before: headBefore,
      selected_branch_head: fork.selectedHead,
    });
    expect(landingLines(fork).map((r) => [r.phase, r.outcome])).toEqual([
      ['intent', undefined],
      ['result', 'done'],
    ]);
    expect(landingLines(fork)[1]?.data).toMatchObject({ merge_commit: merge, reconciled: true });

    // Reconciling again changes nothing.
    expect(await reconcileLanding(fork.ctx, fork.forkId, fork.repo)).toEqual({ outcome: 'landed', merge_commit: merge });
    expect((await fork.record()).revision).toBe(2);
    expect(landingLines(fork)).toHaveLength(2);
    expect(targetState(fork.repo)).toEqual(after);
  });

  it('blocks the fork when no merge commit is found, and never merges on its own', async () => {
    const { fork, token } = await landable();
    await writeIntent(fork);
    const before = targetState(fork.repo);

    expect(await reconcileLanding(fork.ctx, fork.forkId, fork.repo)).toEqual({ outcome: 'blocked', reason: 'landing_in_doubt' });
    expect(await fork.record()).toMatchObject({ state: 'blocked', revision: 2 });
    expect(JSON.parse(readFileSync(fork.forkFile('landing.json'), 'utf8'))).toMatchObject({ status: 'blocked', reason: 'landing_in_doubt', target_branch: 'main' });
    // Still in doubt: only an operator settles it.
    expect(landingLines(fork).map((r) => r.phase)).toEqual(['intent']);

    expect(await reconcileLanding(fork.ctx, fork.forkId, fork.repo)).toEqual({ outcome: 'blocked', reason: 'landing_in_doubt' });
    expect((await fork.record()).revision).toBe(2);
    await expect(land(fork.input(), token)).rejects.toMatchObject({ code: 'LANDING_IN_DOUBT' });
    expect(targetState(fork.repo)).toEqual(before);
    expect(git(fork.repo, 'rev-list', '--merges', '--count', 'HEAD')).toBe('0');
  });

  it('does not take a merge of other commits for the landing', async () => {
    const { fork } = await landable();
    await writeIntent(fork);
    // A merge of the fork's other branch has the right first parent and the wrong second one.
    git(fork.repo, 'merge', '--quiet', '--no-ff', '--no-edit', fork.gitBranch.replace(/branch-claude$/, 'branch-codex'));

    expect(await reconcileLanding(fork.ctx, fork.forkId, fork.repo)).toEqual({ outcome: 'blocked', reason: 'landing_in_doubt' });
    expect((await fork.record()).state).toBe('blocked');
  });

  it('has nothing to reconcile when no landing started', async () => {
    const { fork } = await landable();
    expect(await reconcileLanding(fork.ctx, fork.forkId, fork.repo)).toEqual({ outcome: 'none' });
    expect(await fork.record()).toMatchObject({ state: 'selected', revision: 1 });
    expect(existsSync(fork.forkFile('landing.json'))).toBe(false);
  });
});

describe('a conflicting landing', () => {
  it('is aborted and journaled as failed; each later attempt has its own key, so a crash in one is still seen', async () => {
    const base = realpathSync(tempDir('citadel-land-rec-'));
    const repo = makeRepo(base);
    const fork = await fakeFork(base, repo);
    commitFiles(repo, 'conflicting work', { 'branch-claude.txt': 'main side\n' });
    const { token } = await landingChecks(fork.input());
    const before = targetState(repo);

    await expect(land(fork.input(), token ?? '')).rejects.toMatchObject({ code: 'MERGE_CONFLICT' });
    await expect(land(fork.input(), token ?? '')).rejects.toMatchObject({ code: 'MERGE_CONFLICT' });

    expect(targetState(repo)).toEqual(before);
    expect(await fork.record()).toMatchObject({ state: 'selected', revision: 1 });
    expect(landingLines(fork).map((r) => [r.phase, r.key, r.outcome])).toEqual([
      ['intent', 'branch-claude@0#1', undefined],
      ['result', 'branch-claude@0#1', 'failed'],
      ['intent', 'branch-claude@0#2', undefined],
      ['result', 'branch-claude@0#2', 'failed'],
    ]);

    await writeIntent(fork, 3);
    await expect(land(fork.input(), token ?? '')).rejects.toMatchObject({ code: 'LANDING_IN_DOUBT' });
    expect(await reconcileLanding(fork.ctx, fork.forkId, repo)).toEqual({ outcome: 'blocked', reason: 'landing_in_doubt' });
    expect(targetState(repo)).toEqual(before);
  });
});
