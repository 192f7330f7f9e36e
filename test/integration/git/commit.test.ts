import { existsSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitWorktreeResult } from '../../../main/git/commit';
import { useTempDirs } from '../../support/temp-dir';
import { commitFiles, git, gitStatus, installFailingHook, makeRepo, writeFiles } from './git-fixture';

const tempDir = useTempDirs();

function worktreeOf(repo: string, root: string): { worktree: string; base: string } {
  const worktree = path.join(root, 'worktrees', 'branch-a');
  const base = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'worktree', 'add', '--quiet', '-b', 'citadel/f/branch-a', worktree, base);
  return { worktree, base };
}

describe('commitWorktreeResult', () => {
  it('stages everything but ignored files and commits it as Citadel', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    commitFiles(repo, 'docs', { 'docs/old.md': 'old\n' });
    const { worktree, base } = worktreeOf(repo, root);
    // The operator's own identity in repository config must not be used.
    git(repo, 'config', 'user.name', 'Operator');
    git(repo, 'config', 'user.email', 'operator@example.test');
    writeFiles(worktree, { 'README.md': 'changed\n', 'src/new.ts': 'export {};\n', 'debug.log': 'ignored\n' });
    rmSync(path.join(worktree, 'docs', 'old.md'));

    const result = await commitWorktreeResult(worktree, 'Citadel: branch-a result');

    expect(result.changed).toBe(true);
    expect(result.commit).toBe(git(worktree, 'rev-parse', 'HEAD'));
    expect(result.tree).toBe(git(worktree, 'rev-parse', 'HEAD^{tree}'));
    expect(git(worktree, 'rev-parse', 'HEAD~1')).toBe(base);
    expect(git(worktree, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%s')).toBe(
      'Citadel <citadel@localhost>|Citadel <citadel@localhost>|Citadel: branch-a result',
    );
    expect(git(worktree, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n')).toEqual(['.gitignore', 'README.md', 'src/new.ts']);
    expect(git(worktree, 'status', '--porcelain')).toBe('');
  });

  it('runs no repository hook and ignores a signing requirement in repository config', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    const { worktree } = worktreeOf(repo, root);
    const marker = path.join(root, 'hook-ran');
    for (const hook of ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit']) {
      installFailingHook(path.join(repo, '.git', 'hooks'), hook, marker);
    }
    // The hook is live: a plain git commit runs it and fails.
    writeFiles(worktree, { 'a.txt': 'a\n' });
    git(worktree, 'add', 'a.txt');
    expect(gitStatus(worktree, 'commit', '--quiet', '-m', 'plain')).not.toBe(0);
    expect(existsSync(marker)).toBe(true);
    git(worktree, 'reset', '--quiet');
    rmSync(marker);
    git(repo, 'config', 'commit.gpgSign', 'true');
    git(repo, 'config', 'gpg.program', 'false');

    const result = await commitWorktreeResult(worktree, 'result');

    expect(result.changed).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(git(worktree, 'log', '-1', '--format=%G?')).toBe('N');
  });

  it('makes no empty commit when nothing changed', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    const { worktree, base } = worktreeOf(repo, root);
    writeFiles(worktree, { 'only.log': 'ignored\n' });

    const result = await commitWorktreeResult(worktree, 'result');

    expect(result).toEqual({ commit: base, tree: git(worktree, 'rev-parse', 'HEAD^{tree}'), changed: false });
    expect(git(worktree, 'rev-list', '--count', 'HEAD')).toBe('1');
  });

  it('refuses a directory that is not the top level of a work tree', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    mkdirSync(path.join(repo, 'sub'));
    writeFiles(repo, { 'sub/x.txt': 'x\n' });

    await expect(commitWorktreeResult(path.join(repo, 'sub'), 'result')).rejects.toMatchObject({
      code: 'REPOSITORY_INVALID',
      details: { reason: 'not_a_work_tree_root' },
    });
    expect(git(repo, 'rev-list', '--count', 'HEAD')).toBe('1');
  });
});
