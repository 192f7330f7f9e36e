import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryInfo } from '../../../main/git/repository';
import { useTempDirs } from '../../support/temp-dir';
import { commitFiles, git, makeRepo, writeFiles } from './git-fixture';

const tempDir = useTempDirs();

describe('repositoryInfo', () => {
  it('reports the top level, HEAD, branch and a clean tree', async () => {
    const repo = makeRepo(tempDir());
    mkdirSync(path.join(repo, 'sub'));
    const info = await repositoryInfo(path.join(repo, 'sub'));
    expect(info).toEqual({ root: repo, head: git(repo, 'rev-parse', 'HEAD'), branch: 'main', dirty: false });
    expect(info.head).toMatch(/^[0-9a-f]{40}$/);
  });

  it('resolves a symlinked path to the realpath of the top level', async () => {
    const repo = makeRepo(tempDir());
    const link = path.join(realpathSync(tempDir()), 'link');
    symlinkSync(repo, link);
    expect((await repositoryInfo(link)).root).toBe(repo);
  });

  it('counts untracked, modified and staged files as dirty, but not ignored ones', async () => {
    const repo = makeRepo(tempDir());
    writeFiles(repo, { 'debug.log': 'ignored\n' });
    expect((await repositoryInfo(repo)).dirty).toBe(false);

    writeFiles(repo, { 'new.txt': 'untracked\n' });
    expect((await repositoryInfo(repo)).dirty).toBe(true);
    git(repo, 'add', 'new.txt');
    expect((await repositoryInfo(repo)).dirty).toBe(true);
    git(repo, 'commit', '--quiet', '-m', 'add');
    expect((await repositoryInfo(repo)).dirty).toBe(false);
    writeFiles(repo, { 'README.md': 'changed\n' });
    expect((await repositoryInfo(repo)).dirty).toBe(true);
  });

  it('reports a detached HEAD as branch null', async () => {
    const repo = makeRepo(tempDir());
    const second = commitFiles(repo, 'second', { 'a.txt': 'a\n' });
    git(repo, 'checkout', '--quiet', '--detach', 'HEAD~1');
    const info = await repositoryInfo(repo);
    expect(info.branch).toBeNull();
    expect(info.head).toBe(git(repo, 'rev-parse', `${second}~1`));
  });

  it.each([
    ['a directory that is not in a repository', (dir: string) => dir, 'not_a_repository'],
    ['a path that does not exist', (dir: string) => path.join(dir, 'missing'), 'not_a_directory'],
    ['a bare repository', (dir: string) => (git(dir, 'init', '--quiet', '--bare', 'bare.git'), path.join(dir, 'bare.git')), 'bare_repository'],
    ['a repository without commits', (dir: string) => (git(dir, 'init', '--quiet', 'empty'), path.join(dir, 'empty')), 'no_commits'],
    ['the inside of a .git directory', (dir: string) => path.join(makeRepo(dir), '.git'), 'not_a_work_tree'],
  ])('refuses %s with REPOSITORY_INVALID', async (_label, make, reason) => {
    const target = make(realpathSync(tempDir()));
    await expect(repositoryInfo(target)).rejects.toMatchObject({ code: 'REPOSITORY_INVALID', details: { reason } });
  });
});
