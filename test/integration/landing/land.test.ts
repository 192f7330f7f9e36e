/**
 * Landing (decisions D10) on real temporary repositories: the checks and their token, exactly one
 * `--no-ff` merge commit when confirmed, the fork record and `landing.json`, and no second landing.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { land } from '../../../main/landing/land';
import { landingChecks } from '../../../main/landing/landing-checks';
import { digestOf } from '../../../shared/digest';
import { LANDING_CHECK_NAMES } from '../../../shared/fork/landing';
import { useTempDirs } from '../../support/temp-dir';
import { git, makeRepo } from '../git/git-fixture';
import { fakeFork, targetState } from './landing-fixture';

const tempDir = useTempDirs();

async function selectedFork() {
  const base = realpathSync(tempDir('citadel-land-'));
  return fakeFork(base, makeRepo(base));
}

describe('landingChecks', () => {
  it('passes every check in order and issues the D10 token, changing nothing in the target', async () => {
    const fork = await selectedFork();
    const before = targetState(fork.repo);

    const result = await landingChecks(fork.input());

    expect(result.checks.map((c) => c.name)).toEqual(LANDING_CHECK_NAMES.filter((name) => name !== 'confirmation_token'));
    expect(result.checks.filter((c) => !c.ok)).toEqual([]);
    const facts = {
      fork_id: fork.forkId,
      fork_revision: 1,
      selection_digest: digestOf(fork.selection),
      target_repo_head: before.head,
      selected_branch_head: fork.selectedHead,
    };
    expect(result.token).toBe(digestOf(facts).slice('sha256:'.length, 'sha256:'.length + 12));
    expect(result.plan).toMatchObject({ ...facts, branch_id: 'branch-claude', git_branch: fork.gitBranch, target_branch: 'main', target_repo: fork.repo });
    expect(targetState(fork.repo)).toEqual(before);
    expect((await fork.record()).revision).toBe(1);
  });

  it('reports a failing check with its reason and withholds the token', async () => {
    const fork = await selectedFork();
    const result = await landingChecks(fork.input({ ok: false, reason: 'the execution receipt signature does not verify' }));
    expect(result.token).toBeNull();
    expect(result.checks.filter((c) => !c.ok)).toEqual([{ name: 'receipt_verified', ok: false, reason: 'the execution receipt signature does not verify' }]);
  });
});

describe('land', () => {
  it('merges the selected branch with --no-ff into exactly one merge commit and records the fork as landed', async () => {
    const fork = await selectedFork();
    const headBefore = git(fork.repo, 'rev-parse', 'HEAD');
    const { token } = await landingChecks(fork.input());

    const result = await land(fork.input(), token ?? '');

    expect(result).toEqual({ landed: true, merge_commit: git(fork.repo, 'rev-parse', 'HEAD') });
    expect(git(fork.repo, 'rev-list', '--parents', '-n', '1', result.merge_commit)).toBe(`${result.merge_commit} ${headBefore} ${fork.selectedHead}`);
    expect(git(fork.repo, 'rev-list', '--merges', '--count', 'HEAD')).toBe('1');
    expect(git(fork.repo, 'rev-list', '--count', `${headBefore}..HEAD`)).toBe('2');
    expect(git(fork.repo, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(git(fork.repo, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(readFileSync(`${fork.repo}/branch-claude.txt`, 'utf8')).toBe('branch-claude\n');
    expect(git(fork.repo, 'log', '-1', '--format=%an <%ae>')).toBe('Citadel <citadel@localhost>');
    // Nothing but the merge: no tag, no remote, no other ref moved.
    expect(git(fork.repo, 'tag', '--list')).toBe('');
    expect(git(fork.repo, 'remote')).toBe('');

    const record = await fork.record();
    expect(record).toMatchObject({ state: 'landed', revision: 2 });
    expect(record.history.at(-1)?.state).toBe('landed');
    const landing = JSON.parse(readFileSync(fork.forkFile('landing.json'), 'utf8')) as Record<string, unknown>;
    expect(landing).toMatchObject({
      status: 'landed',
      fork_id: fork.forkId,
      branch_id: 'branch-claude',
      merge_commit: result.merge_commit,
      target_head_before: headBefore,
      selected_branch_head: fork.selectedHead,
      target_branch: 'main',
    });
    expect(Date.parse(String(landing.landed_at))).not.toBeNaN();

    const merges = fork.journalLines().filter((r) => r.effect === 'landing.merge');
    expect(merges.map((r) => [r.phase, r.key, r.outcome])).toEqual([
      ['intent', 'branch-claude@0#1', undefined],
      ['result', 'branch-claude@0#1', 'done'],
    ]);
    expect(merges[0]?.data).toMatchObject({ expected_parents: [headBefore, fork.selectedHead], target_branch: 'main' });
  });

  it('refuses a second landing: the fork has landed, and the target stays as the first landing left it', async () => {
    const fork = await selectedFork();
    const { token } = await landingChecks(fork.input());
    await land(fork.input(), token ?? '');
    const after = targetState(fork.repo);

    const checks = await landingChecks(fork.input());
    expect(checks.token).toBeNull();
    expect(checks.checks.find((c) => c.name === 'selection_current')).toMatchObject({ ok: false, reason: expect.stringMatching(/already landed/) });

    await expect(land(fork.input(), token ?? '')).rejects.toMatchObject({
      code: 'LANDING_PRECONDITION_FAILED',
      details: { failed: expect.arrayContaining(['selection_current']) },
    });
    expect(targetState(fork.repo)).toEqual(after);
    expect(git(fork.repo, 'rev-list', '--merges', '--count', 'HEAD')).toBe('1');
    expect(fork.journalLines().filter((r) => r.effect === 'landing.merge')).toHaveLength(2);
    expect((await fork.record()).revision).toBe(2);
  });
});
