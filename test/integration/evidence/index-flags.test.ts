/**
 * Index flags an executor sets are containment violations (issue 12, "verified is what lands"):
 * a tracked file marked skip-worktree or assume-unchanged keeps its edits out of `git status` and
 * `git add --all`, so the result commit Citadel makes would not hold what the verifier ran. The
 * recheck finds each newly flagged path; the same edit without a flag is the control, and shows
 * why it matters: flagged, the edit never reaches the result commit.
 */
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitBranchResult } from '../../../main/git/commit';
import { checkContainment, containmentSnapshot } from '../../../main/git/containment';
import { useTempDirs } from '../../support/temp-dir';
import { git, makeBranchRepository, makeRepo } from '../git/git-fixture';

const tempDir = useTempDirs();

async function branch() {
  const root = realpathSync(tempDir('citadel-index-flags-'));
  const { repository, base } = await makeBranchRepository(root, makeRepo(root), 'branch-a');
  const before = await containmentSnapshot('branch-a', repository);
  return { repository, base, before, now: async () => checkContainment(before, await containmentSnapshot('branch-a', repository)) };
}

describe('index flags set during a run', () => {
  it.each(['--skip-worktree', '--assume-unchanged'])('%s on an edited tracked file is a violation, and would have hidden the edit from the result commit', async (flag) => {
    const b = await branch();
    writeFileSync(path.join(b.repository.workTree, 'README.md'), 'changed by the agent\n');
    git(b.repository.workTree, 'update-index', flag, 'README.md');

    expect(await b.now()).toEqual([{ kind: 'index_flag_set', subject: 'README.md', branch_id: 'branch-a', before: null, after: 'flagged' }]);
    // What the violation prevents: committed as is, the result leaves the edit out.
    const result = await commitBranchResult(b.repository, 'result');
    expect(result.changed).toBe(false);
    expect(git(b.repository.workTree, 'show', `${result.commit}:README.md`)).toBe('hello');
    expect(readFileSync(path.join(b.repository.workTree, 'README.md'), 'utf8')).toBe('changed by the agent\n');
  });

  it('the control: the same edit without a flag is no violation, and the result commit holds it', async () => {
    const b = await branch();
    expect(b.before.index_flags).toEqual([]);
    writeFileSync(path.join(b.repository.workTree, 'README.md'), 'changed by the agent\n');
    expect(await b.now()).toEqual([]);
    const result = await commitBranchResult(b.repository, 'result');
    expect(result.changed).toBe(true);
    expect(git(b.repository.workTree, 'show', `${result.commit}:README.md`)).toBe('changed by the agent');
  });
});
