import { describe, expect, it } from 'vitest';
import { branchExists, deleteBranch, isAncestor, revParse } from '../../../main/git/refs';
import { useTempDirs } from '../../support/temp-dir';
import { commitFiles, git, gitStatus, makeRepo } from './git-fixture';

const tempDir = useTempDirs();

describe('revParse', () => {
  it('resolves revisions to commit ids and returns null for anything else', async () => {
    const repo = makeRepo(tempDir());
    const first = git(repo, 'rev-parse', 'HEAD');
    const second = commitFiles(repo, 'second', { 'a.txt': 'a\n' });
    git(repo, 'tag', 'v1', first);

    expect(await revParse(repo, 'HEAD')).toBe(second);
    expect(await revParse(repo, 'HEAD~1')).toBe(first);
    expect(await revParse(repo, 'v1')).toBe(first);
    expect(await revParse(repo, 'refs/heads/main')).toBe(second);
    expect(await revParse(repo, 'no-such-branch')).toBeNull();
    expect(await revParse(repo, 'HEAD^{tree}')).toBeNull();
    expect(await revParse(repo, '')).toBeNull();
    expect(await revParse(repo, '--git-dir')).toBeNull();
  });
});

describe('branchExists and deleteBranch', () => {
  it('deletes an unmerged branch, then reports it gone', async () => {
    const repo = makeRepo(tempDir());
    git(repo, 'checkout', '--quiet', '-b', 'citadel/f/a');
    commitFiles(repo, 'unmerged', { 'a.txt': 'a\n' });
    git(repo, 'checkout', '--quiet', 'main');

    expect(await branchExists(repo, 'citadel/f/a')).toBe(true);
    expect(await deleteBranch(repo, 'citadel/f/a')).toBe(true);
    expect(gitStatus(repo, 'show-ref', '--verify', '--quiet', 'refs/heads/citadel/f/a')).toBe(1);
    expect(await branchExists(repo, 'citadel/f/a')).toBe(false);
    expect(await deleteBranch(repo, 'citadel/f/a')).toBe(false);
  });

  it('refuses names git would not accept as branches', async () => {
    const repo = makeRepo(tempDir());
    for (const name of ['-D', 'a..b', 'a b', 'ends.lock', '']) {
      await expect(branchExists(repo, name)).rejects.toMatchObject({ code: 'GIT_REF_INVALID' });
    }
  });
});

describe('isAncestor', () => {
  it('answers for commits on one line and on diverged lines', async () => {
    const repo = makeRepo(tempDir());
    const first = git(repo, 'rev-parse', 'HEAD');
    const second = commitFiles(repo, 'second', { 'a.txt': 'a\n' });
    git(repo, 'checkout', '--quiet', '-b', 'side', first);
    const side = commitFiles(repo, 'side', { 'b.txt': 'b\n' });

    expect(await isAncestor(repo, first, second)).toBe(true);
    expect(await isAncestor(repo, second, second)).toBe(true);
    expect(await isAncestor(repo, second, first)).toBe(false);
    expect(await isAncestor(repo, 'main', side)).toBe(false);
    await expect(isAncestor(repo, 'nope', 'main')).rejects.toMatchObject({ code: 'GIT_REF_INVALID' });
  });
});
