/**
 * The target identity bound into a contract (issue 12): the same repository reached through a
 * symlinked path is the same target; a copy, a linked worktree, and a repository swapped in at the
 * same path are not. Real git repositories in temp dirs.
 */
import { cpSync, mkdirSync, realpathSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { targetMismatch, targetRepositoryDigest } from '../../../main/landing/target-identity';
import { git, makeRepo } from '../../integration/git/git-fixture';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

describe('target repository identity', () => {
  it('is the same through a symlinked path, and differs for a copy, a linked worktree or a repository swapped in at the same path', async () => {
    const base = realpathSync(tempDir('citadel-target-identity-'));
    const repo = makeRepo(base);
    const digest = await targetRepositoryDigest(repo);
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await targetRepositoryDigest(repo)).toBe(digest);
    const link = path.join(base, 'link');
    symlinkSync(repo, link);
    expect(await targetRepositoryDigest(realpathSync(link))).toBe(digest);
    expect(await targetMismatch(realpathSync(link), digest)).toBeNull();

    const copy = path.join(base, 'copy');
    cpSync(repo, copy, { recursive: true });
    expect(await targetRepositoryDigest(copy)).not.toBe(digest);
    expect(await targetMismatch(copy, digest)).toMatch(/not the repository this fork's contract binds/);

    const worktree = path.join(base, 'worktree');
    git(repo, 'worktree', 'add', '-q', '--detach', worktree);
    expect(await targetRepositoryDigest(worktree)).not.toBe(digest);

    // The original moved aside and its copy renamed into its place: same path, another repository.
    renameSync(repo, path.join(base, 'moved'));
    renameSync(copy, repo);
    expect(await targetRepositoryDigest(repo)).not.toBe(digest);
    // Nothing bound (a fork from before): no mismatch; a path that is no repository: a mismatch.
    expect(await targetMismatch(repo, null)).toBeNull();
    const empty = path.join(base, 'empty');
    mkdirSync(empty);
    expect(await targetMismatch(empty, digest)).toMatch(/cannot be identified/);
  });
});
