import { existsSync, mkdirSync, realpathSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addWorktree, ensureWorktree, listWorktrees, removeWorktree } from '../../../main/git/worktree';
import { useTempDirs } from '../../support/temp-dir';
import { commitFiles, git, makeRepo, writeFiles } from './git-fixture';

const tempDir = useTempDirs();

function setup(): { repo: string; root: string; base: string } {
  const root = realpathSync(tempDir());
  const repo = makeRepo(root);
  return { repo, root, base: git(repo, 'rev-parse', 'HEAD') };
}

describe('addWorktree', () => {
  it('creates a new branch at the base, checked out at the path', async () => {
    const { repo, root, base } = setup();
    commitFiles(repo, 'later', { 'later.txt': 'x\n' });
    const target = path.join(root, 'worktrees', 'fork-1', 'branch-a');

    expect(await addWorktree(repo, target, 'citadel/fork-1/branch-a', base)).toEqual({ path: target, head: base });
    expect(git(target, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(target, 'symbolic-ref', 'HEAD')).toBe('refs/heads/citadel/fork-1/branch-a');
    expect(existsSync(path.join(target, 'later.txt'))).toBe(false);
  });

  it('refuses an invalid branch name and a base that is no commit', async () => {
    const { repo, root, base } = setup();
    await expect(addWorktree(repo, path.join(root, 'w'), 'bad..name', base)).rejects.toMatchObject({ code: 'GIT_REF_INVALID' });
    await expect(addWorktree(repo, path.join(root, 'w'), '-b', base)).rejects.toMatchObject({ code: 'GIT_REF_INVALID' });
    await expect(addWorktree(repo, path.join(root, 'w'), 'ok', '--orphan')).rejects.toMatchObject({ code: 'GIT_REF_INVALID' });
    expect(existsSync(path.join(root, 'w'))).toBe(false);
  });
});

describe('listWorktrees', () => {
  it('lists every worktree with its realpath, HEAD, branch and flags, odd paths included', async () => {
    const { repo, root, base } = setup();
    const odd = path.join(root, 'wörk tree\nwith newline');
    const detached = path.join(root, 'detached');
    const gone = path.join(root, 'gone');
    git(repo, 'worktree', 'add', '--quiet', '-b', 'odd', odd, base);
    git(repo, 'worktree', 'add', '--quiet', '--detach', detached, base);
    git(repo, 'worktree', 'lock', detached);
    git(repo, 'worktree', 'add', '--quiet', '-b', 'gone', gone, base);
    rmSync(gone, { recursive: true });
    // Recorded through a path that has since become a symlink: reported by realpath.
    mkdirSync(path.join(root, 'real'));
    git(repo, 'worktree', 'add', '--quiet', '-b', 'linked', path.join(root, 'real', 'linked'), base);
    renameSync(path.join(root, 'real'), path.join(root, 'moved'));
    symlinkSync(path.join(root, 'moved'), path.join(root, 'real'));

    const flags = { detached: false, bare: false, locked: false, prunable: false };
    const entries = await listWorktrees(repo);
    expect(entries[0]).toEqual({ ...flags, path: repo, recordedPath: repo, head: base, branch: 'refs/heads/main' });
    expect(entries.slice(1).sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { ...flags, path: detached, recordedPath: detached, head: base, branch: null, detached: true, locked: true },
      { ...flags, path: gone, recordedPath: gone, head: base, branch: 'refs/heads/gone', prunable: true },
      { ...flags, path: path.join(root, 'moved', 'linked'), recordedPath: path.join(root, 'real', 'linked'), head: base, branch: 'refs/heads/linked' },
      { ...flags, path: odd, recordedPath: odd, head: base, branch: 'refs/heads/odd' },
    ]);
  });
});

describe('ensureWorktree', () => {
  it('creates the worktree once and accepts it, unchanged or advanced, when retried', async () => {
    const { repo, root, base } = setup();
    const target = path.join(root, 'worktrees', 'branch-a');

    expect(await ensureWorktree(repo, target, 'citadel/f/a', base)).toEqual({ path: target, head: base, created: true });
    expect(await ensureWorktree(repo, target, 'citadel/f/a', base)).toEqual({ path: target, head: base, created: false });

    const advanced = commitFiles(target, 'work', { 'work.txt': 'done\n' });
    expect(await ensureWorktree(repo, target, 'citadel/f/a', base)).toEqual({ path: target, head: advanced, created: false });
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
  });

  it('refuses when something other than the requested worktree is there', async () => {
    const { repo, root, base } = setup();
    const target = path.join(root, 'w');
    const conflict = { code: 'WORKTREE_CONFLICT' };

    git(repo, 'branch', 'citadel/only-branch', base);
    await expect(ensureWorktree(repo, target, 'citadel/only-branch', base)).rejects.toMatchObject(conflict);

    git(repo, 'worktree', 'add', '--quiet', '-b', 'someone-else', target, base);
    await expect(ensureWorktree(repo, target, 'citadel/mine', base)).rejects.toMatchObject(conflict);
    await expect(ensureWorktree(repo, path.join(root, 'elsewhere'), 'someone-else', base)).rejects.toMatchObject(conflict);

    // The branch exists at the path, but not on top of the requested base.
    const later = commitFiles(repo, 'later', { 'later.txt': 'x\n' });
    await expect(ensureWorktree(repo, target, 'someone-else', later)).rejects.toMatchObject(conflict);

    rmSync(target, { recursive: true });
    await expect(ensureWorktree(repo, target, 'someone-else', base)).rejects.toMatchObject(conflict);
  });
});

describe('removeWorktree', () => {
  it('removes a worktree with untracked and modified files, and reports a second call as a no-op', async () => {
    const { repo, root, base } = setup();
    const target = path.join(root, 'w');
    git(repo, 'worktree', 'add', '--quiet', '-b', 'w', target, base);
    writeFiles(target, { 'untracked.txt': 'x\n', 'README.md': 'modified\n', 'debug.log': 'ignored\n' });

    expect(await removeWorktree(repo, target)).toBe(true);
    expect(existsSync(target)).toBe(false);
    expect((await listWorktrees(repo)).map((entry) => entry.path)).toEqual([repo]);
    expect(git(repo, 'branch', '--list', 'w')).not.toBe('');
    expect(await removeWorktree(repo, target)).toBe(false);
  });

  it('prunes a worktree whose directory is already gone', async () => {
    const { repo, root, base } = setup();
    const target = path.join(root, 'w');
    git(repo, 'worktree', 'add', '--quiet', '-b', 'w', target, base);
    rmSync(target, { recursive: true });

    expect(await removeWorktree(repo, target)).toBe(true);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain(target);
  });
});
