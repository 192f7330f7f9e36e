import { realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BranchRepository } from '../../../main/git/branch-repository';
import { assertContained, checkContainment, ContainmentSnapshotSchema, containmentSnapshot } from '../../../main/git/containment';
import type { ContainmentSnapshot, ContainmentViolation } from '../../../main/git/containment';
import { useTempDirs } from '../../support/temp-dir';
import { commitFiles, git, makeBranchRepository, makeRepo, writeFiles } from './git-fixture';

const tempDir = useTempDirs();

interface Branch {
  repo: string;
  root: string;
  base: string;
  a: BranchRepository;
  before: ContainmentSnapshot;
  /** The violations between the snapshot before and one taken now. */
  violationsNow(): Promise<ContainmentViolation[]>;
}

async function startBranch(): Promise<Branch> {
  const root = realpathSync(tempDir());
  const repo = makeRepo(root);
  const { repository: a, base } = await makeBranchRepository(root, repo, 'branch-a');
  const before = await containmentSnapshot('branch-a', a);
  return { repo, root, base, a, before, violationsNow: async () => checkContainment(before, await containmentSnapshot('branch-a', a)) };
}

const v = (kind: ContainmentViolation['kind'], subject: string, before: string | null, after: string | null): ContainmentViolation => ({
  kind,
  subject,
  branch_id: 'branch-a',
  before,
  after,
});

describe('containmentSnapshot', () => {
  it('records HEAD, every ref and the git dir metadata of the branch repository as plain JSON', async () => {
    const { base, a, before } = await startBranch();
    expect(before).toMatchObject({
      branch_id: 'branch-a',
      git_dir: a.gitDir,
      work_tree: a.workTree,
      work_tree_present: true,
      head: { commit: base, symbolic_ref: 'refs/heads/citadel/f/branch-a' },
      refs: { 'refs/heads/citadel/f/branch-a': base },
    });
    expect(Object.keys(before.files)).toEqual(expect.arrayContaining(['config', 'objects/info/alternates', 'hooks']));
    expect(Object.keys(before.files).filter((name) => name === 'index' || name.startsWith('refs') || name.startsWith('logs'))).toEqual([]);
    expect(ContainmentSnapshotSchema.parse(JSON.parse(JSON.stringify(before)))).toEqual(before);
  });
});

describe('checkContainment', () => {
  it('finds nothing when the agent only edits, adds, deletes and stages files', async () => {
    const branch = await startBranch();
    writeFiles(branch.a.workTree, { 'README.md': 'edited\n', 'src/new file.ts': 'export {};\n', 'debug.log': 'x\n' });
    git(branch.a.workTree, 'rm', '--quiet', '.gitignore');
    git(branch.a.workTree, 'add', 'src');
    expect(await branch.violationsNow()).toEqual([]);
  });

  it('finds a commit, a branch switch and a new branch, all attributed to that branch', async () => {
    const branch = await startBranch();
    const commit = commitFiles(branch.a.workTree, 'agent commit', { 'a.txt': 'a\n' });
    git(branch.a.workTree, 'checkout', '--quiet', '-b', 'escape');
    expect(await branch.violationsNow()).toEqual([
      v('worktree_head_moved', branch.a.workTree, branch.base, commit),
      v('worktree_branch_switched', branch.a.workTree, 'refs/heads/citadel/f/branch-a', 'refs/heads/escape'),
      v('branch_moved', 'refs/heads/citadel/f/branch-a', branch.base, commit),
      v('branch_created', 'refs/heads/escape', null, commit),
    ]);
  });

  it('finds tags, stash, notes and replace refs', async () => {
    const branch = await startBranch();
    git(branch.a.workTree, 'tag', 'planted');
    git(branch.a.workTree, 'notes', 'add', '-m', 'note');
    writeFiles(branch.a.workTree, { 'README.md': 'stashed\n' });
    git(branch.a.workTree, 'stash', '--quiet');
    const tree = git(branch.a.workTree, 'write-tree');
    const replacement = git(branch.a.workTree, 'commit-tree', '-m', 'replacement', tree);
    git(branch.a.workTree, 'replace', branch.base, replacement);
    const kinds = (await branch.violationsNow()).map((entry) => [entry.kind, entry.subject]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ['ref_created', 'refs/tags/planted'],
        ['ref_created', 'refs/notes/commits'],
        ['ref_created', 'refs/stash'],
        ['ref_created', `refs/replace/${branch.base}`],
      ]),
    );
  });

  it('finds a registered worktree, a config change, a hook and an info file', async () => {
    const branch = await startBranch();
    git(branch.a.workTree, 'worktree', 'add', '--quiet', '-b', 'side', path.join(branch.root, 'side'));
    git(branch.a.workTree, 'config', 'core.fsmonitor', 'planted');
    writeFileSync(path.join(branch.a.gitDir, 'hooks', 'pre-commit'), '#!/bin/sh\n');
    writeFiles(branch.a.gitDir, { 'info/attributes': '* filter=planted\n' });
    const found = (await branch.violationsNow()).map((entry) => `${entry.kind} ${entry.subject}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'branch_created refs/heads/side',
        'git_metadata_added worktrees',
        'git_metadata_changed config',
        'git_metadata_added hooks/pre-commit',
        'git_metadata_added info/attributes',
      ]),
    );
  });

  it('finds a removed work tree', async () => {
    const branch = await startBranch();
    rmSync(branch.a.workTree, { recursive: true, force: true });
    expect(await branch.violationsNow()).toEqual([v('worktree_removed', branch.a.workTree, branch.a.workTree, null)]);
  });

  it('ignores everything the operator does in their own repository: commits, branches, worktrees', async () => {
    const branch = await startBranch();
    commitFiles(branch.repo, 'operator commit', { 'op.txt': 'op\n' });
    git(branch.repo, 'branch', 'operator-topic');
    git(branch.repo, 'worktree', 'add', '--quiet', path.join(branch.root, 'operator-worktree'), 'operator-topic');
    git(branch.repo, 'checkout', '--quiet', '-b', 'operator-switch');
    expect(await branch.violationsNow()).toEqual([]);
  });

  it('refuses to compare snapshots of different branch repositories', async () => {
    const branch = await startBranch();
    expect(() => checkContainment(branch.before, { ...branch.before, git_dir: '/elsewhere' })).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }));
  });
});

describe('assertContained', () => {
  it('throws WORKTREE_CONTAINMENT_VIOLATION listing every violation', async () => {
    const branch = await startBranch();
    expect(() => assertContained(branch.before, branch.before)).not.toThrow();
    const commit = commitFiles(branch.a.workTree, 'agent commit', { 'a.txt': 'a\n' });
    const after = await containmentSnapshot('branch-a', branch.a);
    expect(() => assertContained(branch.before, after)).toThrow(
      expect.objectContaining({
        code: 'WORKTREE_CONTAINMENT_VIOLATION',
        details: { violations: [v('worktree_head_moved', branch.a.workTree, branch.base, commit), v('branch_moved', 'refs/heads/citadel/f/branch-a', branch.base, commit)] },
      }),
    );
  });
});
