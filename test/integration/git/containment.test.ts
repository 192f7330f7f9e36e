import { realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertContained, checkContainment, ContainmentSnapshotSchema, containmentSnapshot } from '../../../main/git/containment';
import type { AssignedWorktree, ContainmentSnapshot, ContainmentViolation } from '../../../main/git/containment';
import { ensureWorktree } from '../../../main/git/worktree';
import { useTempDirs } from '../../support/temp-dir';
import { commitFiles, git, makeRepo, writeFiles } from './git-fixture';

const tempDir = useTempDirs();

interface Fork {
  repo: string;
  root: string;
  base: string;
  a: AssignedWorktree;
  b: AssignedWorktree;
  before: ContainmentSnapshot;
  /** The violations between the snapshot before and one taken now. */
  violationsNow(): Promise<ContainmentViolation[]>;
}

async function startFork(): Promise<Fork> {
  const root = realpathSync(tempDir());
  const repo = makeRepo(root);
  const base = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'branch', 'feature', base);
  const a = { branchId: 'branch-a', worktreePath: path.join(root, 'worktrees', 'branch-a'), branchName: 'citadel/f/branch-a' };
  const b = { branchId: 'branch-b', worktreePath: path.join(root, 'worktrees', 'branch-b'), branchName: 'citadel/f/branch-b' };
  for (const worktree of [a, b]) await ensureWorktree(repo, worktree.worktreePath, worktree.branchName, base);
  const before = await containmentSnapshot(repo, [a, b]);
  return {
    repo,
    root,
    base,
    a,
    b,
    before,
    violationsNow: async () => checkContainment(before, await containmentSnapshot(repo, [a, b])),
  };
}

const v = (
  kind: ContainmentViolation['kind'],
  subject: string,
  branchId: string | null,
  before: string | null,
  after: string | null,
): ContainmentViolation => ({ kind, subject, branch_id: branchId, before, after });

describe('containmentSnapshot', () => {
  it('records the parent, the worktrees, every local branch and each assigned worktree as plain JSON', async () => {
    const { repo, base, a, before } = await startFork();
    expect(before.parent).toEqual({ path: repo, head: base, symbolic_ref: 'refs/heads/main' });
    expect(before.worktrees.map((entry) => entry.path)).toEqual([repo, a.worktreePath, path.join(path.dirname(a.worktreePath), 'branch-b')].sort());
    expect(before.worktrees.find((entry) => entry.path === repo)?.admin_id).toBeNull();
    expect(before.worktrees.find((entry) => entry.path === a.worktreePath)?.admin_id).toEqual(expect.any(String));
    expect(before.branches).toEqual({
      'refs/heads/citadel/f/branch-a': base,
      'refs/heads/citadel/f/branch-b': base,
      'refs/heads/feature': base,
      'refs/heads/main': base,
    });
    expect(before.assigned[0]).toEqual({
      branch_id: 'branch-a',
      worktree_path: a.worktreePath,
      branch_name: 'citadel/f/branch-a',
      head: base,
      symbolic_ref: 'refs/heads/citadel/f/branch-a',
    });
    expect(ContainmentSnapshotSchema.parse(JSON.parse(JSON.stringify(before)))).toEqual(before);
  });
});

describe('checkContainment', () => {
  it('finds nothing when the agent only edits, adds, deletes and stages files', async () => {
    const fork = await startFork();
    writeFiles(fork.a.worktreePath, { 'README.md': 'edited\n', 'src/new file.ts': 'export {};\n', 'debug.log': 'x\n' });
    git(fork.a.worktreePath, 'rm', '--quiet', '.gitignore');
    git(fork.a.worktreePath, 'add', 'src');
    writeFiles(fork.b.worktreePath, { 'other.txt': 'b\n' });

    expect(await fork.violationsNow()).toEqual([]);
    expect(() => assertContained(fork.before, fork.before)).not.toThrow();
  });

  it('catches a commit in an assigned worktree', async () => {
    const fork = await startFork();
    const commit = commitFiles(fork.a.worktreePath, 'agent commit', { 'x.txt': 'x\n' });
    expect(await fork.violationsNow()).toEqual([
      v('worktree_head_moved', fork.a.worktreePath, 'branch-a', fork.base, commit),
      v('branch_moved', 'refs/heads/citadel/f/branch-a', 'branch-a', fork.base, commit),
    ]);
  });

  it('catches checkout -b in an assigned worktree', async () => {
    const fork = await startFork();
    git(fork.b.worktreePath, 'checkout', '--quiet', '-b', 'escape');
    expect(await fork.violationsNow()).toEqual([
      v('worktree_branch_switched', fork.b.worktreePath, 'branch-b', 'refs/heads/citadel/f/branch-b', 'refs/heads/escape'),
      v('branch_created', 'refs/heads/escape', null, null, fork.base),
    ]);
  });

  it('catches a detached checkout of another commit in an assigned worktree', async () => {
    const fork = await startFork();
    const later = commitFiles(fork.repo, 'later', { 'later.txt': 'x\n' });
    git(fork.repo, 'reset', '--quiet', '--hard', fork.base);
    git(fork.a.worktreePath, 'checkout', '--quiet', '--detach', later);
    expect(await fork.violationsNow()).toEqual([
      v('worktree_head_moved', fork.a.worktreePath, 'branch-a', fork.base, later),
      v('worktree_branch_switched', fork.a.worktreePath, 'branch-a', 'refs/heads/citadel/f/branch-a', null),
    ]);
  });

  it('catches a worktree added by the agent', async () => {
    const fork = await startFork();
    const extra = path.join(fork.root, 'extra');
    git(fork.a.worktreePath, 'worktree', 'add', '--quiet', '--detach', extra);
    expect(await fork.violationsNow()).toEqual([v('worktree_added', extra, null, null, extra)]);
  });

  it('catches an assigned worktree removed by the agent', async () => {
    const fork = await startFork();
    git(fork.a.worktreePath, 'worktree', 'remove', '--force', fork.b.worktreePath);
    expect(await fork.violationsNow()).toEqual([v('worktree_removed', fork.b.worktreePath, 'branch-b', fork.b.worktreePath, null)]);
  });

  it('keeps an assigned worktree named through a symlink at its realpath, also once removed', async () => {
    const fork = await startFork();
    const alias = path.join(realpathSync(tempDir()), 'alias');
    symlinkSync(path.dirname(fork.b.worktreePath), alias);
    const viaAlias = { ...fork.b, worktreePath: path.join(alias, 'branch-b') };
    const before = await containmentSnapshot(fork.repo, [viaAlias]);
    git(fork.repo, 'worktree', 'remove', '--force', fork.b.worktreePath);
    const after = await containmentSnapshot(fork.repo, [viaAlias]);

    expect(before.assigned[0]?.worktree_path).toBe(fork.b.worktreePath);
    expect(after.assigned[0]).toMatchObject({ worktree_path: fork.b.worktreePath, head: null, symbolic_ref: null });
    expect(checkContainment(before, after)).toEqual([v('worktree_removed', fork.b.worktreePath, 'branch-b', fork.b.worktreePath, null)]);
  });

  it('catches an assigned worktree moved by the agent', async () => {
    const fork = await startFork();
    const moved = path.join(fork.root, 'moved-b');
    git(fork.repo, 'worktree', 'move', fork.b.worktreePath, moved);
    expect(await fork.violationsNow()).toEqual([v('worktree_moved', fork.b.worktreePath, 'branch-b', fork.b.worktreePath, moved)]);
  });

  it('catches a branch deleted from inside a worktree', async () => {
    const fork = await startFork();
    git(fork.a.worktreePath, 'branch', '-D', 'feature');
    expect(await fork.violationsNow()).toEqual([v('branch_deleted', 'refs/heads/feature', null, fork.base, null)]);
  });

  it('catches branches moved from inside a worktree, including the one another worktree has checked out', async () => {
    const fork = await startFork();
    const later = commitFiles(fork.repo, 'later', { 'later.txt': 'x\n' });
    git(fork.repo, 'reset', '--quiet', '--hard', fork.base);
    git(fork.a.worktreePath, 'branch', '--force', 'feature', later);
    git(fork.a.worktreePath, 'update-ref', 'refs/heads/citadel/f/branch-b', later);
    expect(await fork.violationsNow()).toEqual([
      v('worktree_head_moved', fork.b.worktreePath, 'branch-b', fork.base, later),
      v('branch_moved', 'refs/heads/citadel/f/branch-b', 'branch-b', fork.base, later),
      v('branch_moved', 'refs/heads/feature', null, fork.base, later),
    ]);
  });

  it('catches a checkout in the parent worktree', async () => {
    const fork = await startFork();
    git(fork.repo, 'checkout', '--quiet', 'feature');
    expect(await fork.violationsNow()).toEqual([
      v('parent_branch_switched', fork.repo, null, 'refs/heads/main', 'refs/heads/feature'),
    ]);
  });

  it('catches a commit in the parent worktree', async () => {
    const fork = await startFork();
    const commit = commitFiles(fork.repo, 'parent commit', { 'p.txt': 'p\n' });
    expect(await fork.violationsNow()).toEqual([
      v('parent_head_moved', fork.repo, null, fork.base, commit),
      v('branch_moved', 'refs/heads/main', null, fork.base, commit),
    ]);
  });

  it('refuses to compare snapshots of different assignments', async () => {
    const fork = await startFork();
    const other = await containmentSnapshot(fork.repo, [fork.a]);
    expect(() => checkContainment(fork.before, other)).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }));
  });
});

describe('assertContained', () => {
  it('fails closed with WORKTREE_CONTAINMENT_VIOLATION listing every violation', async () => {
    const fork = await startFork();
    const commit = commitFiles(fork.a.worktreePath, 'agent commit', { 'x.txt': 'x\n' });
    const after = await containmentSnapshot(fork.repo, [fork.a, fork.b]);
    expect(() => assertContained(fork.before, after)).toThrow(
      expect.objectContaining({
        code: 'WORKTREE_CONTAINMENT_VIOLATION',
        details: {
          violations: [
            v('worktree_head_moved', fork.a.worktreePath, 'branch-a', fork.base, commit),
            v('branch_moved', 'refs/heads/citadel/f/branch-a', 'branch-a', fork.base, commit),
          ],
        },
      }),
    );
  });
});
