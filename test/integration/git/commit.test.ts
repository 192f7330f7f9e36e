import { existsSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BranchRepository } from '../../../main/git/branch-repository';
import { commitBranchResult } from '../../../main/git/commit';
import { useTempDirs } from '../../support/temp-dir';
import { commitFiles, git, gitStatus, installFailingHook, makeBranchRepository, makeRepo, writeFiles } from './git-fixture';

const tempDir = useTempDirs();

async function worktreeOf(repo: string, root: string): Promise<{ worktree: string; base: string; repository: BranchRepository }> {
  const { repository, base } = await makeBranchRepository(root, repo, 'branch-a');
  return { worktree: repository.workTree, base, repository };
}

describe('commitBranchResult', () => {
  it('stages everything but ignored files and commits it as Citadel', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    commitFiles(repo, 'docs', { 'docs/old.md': 'old\n' });
    const { worktree, base, repository } = await worktreeOf(repo, root);
    // An identity in repository config must not be used.
    git(worktree, 'config', 'user.name', 'Operator');
    git(worktree, 'config', 'user.email', 'operator@example.test');
    writeFiles(worktree, { 'README.md': 'changed\n', 'src/new.ts': 'export {};\n', 'debug.log': 'ignored\n' });
    rmSync(path.join(worktree, 'docs', 'old.md'));

    const result = await commitBranchResult(repository, 'Citadel: branch-a result');

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
    const { worktree, repository } = await worktreeOf(repo, root);
    const marker = path.join(root, 'hook-ran');
    for (const hook of ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit']) {
      installFailingHook(path.join(repository.gitDir, 'hooks'), hook, marker);
    }
    // The hook is live: a plain git commit runs it and fails.
    writeFiles(worktree, { 'a.txt': 'a\n' });
    git(worktree, 'add', 'a.txt');
    expect(gitStatus(worktree, 'commit', '--quiet', '-m', 'plain')).not.toBe(0);
    expect(existsSync(marker)).toBe(true);
    git(worktree, 'reset', '--quiet');
    rmSync(marker);
    git(worktree, 'config', 'commit.gpgSign', 'true');
    git(worktree, 'config', 'gpg.program', 'false');

    const result = await commitBranchResult(repository, 'result');

    expect(result.changed).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(git(worktree, 'log', '-1', '--format=%G?')).toBe('N');
  });

  it('makes no empty commit when nothing changed', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    const { worktree, base, repository } = await worktreeOf(repo, root);
    writeFiles(worktree, { 'only.log': 'ignored\n' });

    const result = await commitBranchResult(repository, 'result');

    expect(result).toEqual({ commit: base, tree: git(worktree, 'rev-parse', 'HEAD^{tree}'), changed: false });
    expect(git(worktree, 'rev-list', '--count', 'HEAD')).toBe('1');
  });

  it('commits in the git dir Citadel recorded, whatever the work tree\'s .git file now names', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    const { worktree, base, repository } = await worktreeOf(repo, root);
    const other = makeRepo(tempDir());
    writeFiles(worktree, { '.git': `gitdir: ${path.join(other, '.git')}\n`, 'a.txt': 'a\n' });
    // The control: plain git in the work tree now works in the other repository.
    expect(git(worktree, 'rev-parse', '--absolute-git-dir')).toBe(path.join(other, '.git'));

    const result = await commitBranchResult(repository, 'result');

    expect(result.changed).toBe(true);
    expect(git(repository.gitDir, 'rev-parse', 'HEAD')).toBe(result.commit);
    expect(git(repository.gitDir, 'rev-parse', 'HEAD~1')).toBe(base);
    expect(git(repository.gitDir, 'ls-tree', '--name-only', 'HEAD').split('\n')).toEqual(['.gitignore', 'README.md', 'a.txt']);
    expect(git(other, 'rev-list', '--count', 'HEAD')).toBe('1');
  });
});
