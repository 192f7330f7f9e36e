import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeNoFf } from '../../../main/git/merge';
import { useTempDirs } from '../../support/temp-dir';
import { commitFiles, git, gitStatus, installFailingHook, makeRepo, writeFiles } from './git-fixture';

const tempDir = useTempDirs();

/** A target repository on `main` and a branch `citadel/f/a` that diverged from it. */
function diverged(branchFiles: Record<string, string>, mainFiles: Record<string, string>): { repo: string; branchHead: string; mainHead: string } {
  const repo = makeRepo(realpathSync(tempDir()));
  commitFiles(repo, 'shared', { 'shared.txt': 'one\ntwo\n' });
  git(repo, 'checkout', '--quiet', '-b', 'citadel/f/a');
  const branchHead = commitFiles(repo, 'branch work', branchFiles);
  git(repo, 'checkout', '--quiet', 'main');
  const mainHead = commitFiles(repo, 'main work', mainFiles);
  return { repo, branchHead, mainHead };
}

describe('mergeNoFf', () => {
  it('records a merge commit by Citadel with both parents, running no hook', async () => {
    const { repo, branchHead, mainHead } = diverged({ 'feature.txt': 'f\n' }, { 'main.txt': 'm\n' });
    const marker = path.join(repo, '..', 'hook-ran');
    for (const hook of ['pre-merge-commit', 'commit-msg', 'post-merge']) installFailingHook(path.join(repo, '.git', 'hooks'), hook, marker);

    const merge = await mergeNoFf(repo, 'citadel/f/a', 'Land fork f branch a');

    expect(merge).toBe(git(repo, 'rev-parse', 'HEAD'));
    expect(git(repo, 'rev-list', '--parents', '-n', '1', merge)).toBe(`${merge} ${mainHead} ${branchHead}`);
    expect(git(repo, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%B')).toBe(
      'Citadel <citadel@localhost>|Citadel <citadel@localhost>|Land fork f branch a\n',
    );
    expect(git(repo, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(existsSync(path.join(repo, 'feature.txt'))).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  it('makes a merge commit even when a fast-forward was possible', async () => {
    const repo = makeRepo(realpathSync(tempDir()));
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '--quiet', '-b', 'citadel/f/a');
    const branchHead = commitFiles(repo, 'branch work', { 'feature.txt': 'f\n' });
    git(repo, 'checkout', '--quiet', 'main');

    const merge = await mergeNoFf(repo, 'citadel/f/a', 'Land');
    expect(git(repo, 'rev-list', '--parents', '-n', '1', merge)).toBe(`${merge} ${base} ${branchHead}`);
  });

  it('aborts a conflicting merge and leaves the target exactly as before', async () => {
    const { repo, mainHead } = diverged({ 'shared.txt': 'one\nbranch\n' }, { 'shared.txt': 'one\nmain\n' });

    await expect(mergeNoFf(repo, 'citadel/f/a', 'Land')).rejects.toMatchObject({
      code: 'MERGE_CONFLICT',
      details: { branch: 'citadel/f/a', conflicted_paths: ['shared.txt'] },
    });
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(mainHead);
    expect(git(repo, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(gitStatus(repo, 'rev-parse', '--verify', '--quiet', 'MERGE_HEAD')).not.toBe(0);
  });

  it('refuses a dirty target without touching it', async () => {
    const { repo, mainHead } = diverged({ 'feature.txt': 'f\n' }, { 'main.txt': 'm\n' });
    writeFiles(repo, { 'scratch.txt': 'operator work\n' });

    await expect(mergeNoFf(repo, 'citadel/f/a', 'Land')).rejects.toMatchObject({ code: 'REPOSITORY_DIRTY' });
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(mainHead);
    expect(git(repo, 'status', '--porcelain')).toBe('?? scratch.txt');
  });

  it('refuses a branch that is missing or already merged', async () => {
    const { repo } = diverged({ 'feature.txt': 'f\n' }, { 'main.txt': 'm\n' });
    await expect(mergeNoFf(repo, 'citadel/f/missing', 'Land')).rejects.toMatchObject({ code: 'GIT_REF_INVALID' });

    await mergeNoFf(repo, 'citadel/f/a', 'Land');
    const landed = git(repo, 'rev-parse', 'HEAD');
    await expect(mergeNoFf(repo, 'citadel/f/a', 'Land again')).rejects.toMatchObject({ code: 'MERGE_UP_TO_DATE' });
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(landed);
  });
});
