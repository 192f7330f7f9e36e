import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliverResult, ensureBaseRepository, ensureBranchRepository, removeBranchRepository } from '../../../main/git/branch-repository';
import { runGit } from '../../../main/git/run';
import { assertDeliveryNamespaceFree, resultBranchHead } from '../../../main/orchestrator/delivery-namespace';
import { useTempDirs } from '../../support/temp-dir';
import { commitFiles, git, makeBranchRepository, makeRepo, writeFiles } from './git-fixture';

const tempDir = useTempDirs();

const objectsOf = (gitDir: string): string[] => git(gitDir, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)').split('\n').filter(Boolean);

describe('the base object store', () => {
  it('holds the base revision and its history only, not the operator\'s other branches', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '--quiet', '-b', 'secret');
    const secret = commitFiles(repo, 'secret', { 'secret.txt': 'operator secret\n' });
    git(repo, 'checkout', '--quiet', 'main');
    const baseDir = path.join(root, 'repositories', 'base.git');

    await ensureBaseRepository(repo, baseDir, base);

    const objects = objectsOf(baseDir);
    expect(objects).toContain(base);
    expect(objects).not.toContain(secret);
    expect(objects).not.toContain(git(repo, 'rev-parse', 'secret:secret.txt'));
    // The control: the operator's own store has them.
    expect(objectsOf(path.join(repo, '.git'))).toContain(secret);
    // Repeatable; another base in the same place is refused.
    await ensureBaseRepository(repo, baseDir, base);
    await expect(ensureBaseRepository(repo, baseDir, secret)).rejects.toMatchObject({ code: 'WORKTREE_CONFLICT' });
  });
});

describe('a branch repository', () => {
  it('checks the base out in its work tree with a .git file naming its own git dir outside it, and is repeatable', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    const { repository, base, baseDir } = await makeBranchRepository(root, repo, 'branch-a');
    expect(readFileSync(path.join(repository.workTree, '.git'), 'utf8')).toBe(`gitdir: ${repository.gitDir}\n`);
    expect(readFileSync(path.join(repository.gitDir, 'objects', 'info', 'alternates'), 'utf8')).toBe(`${path.join(baseDir, 'objects')}\n`);
    expect(readFileSync(path.join(repository.workTree, 'README.md'), 'utf8')).toBe('hello\n');
    expect(git(repository.workTree, 'status', '--porcelain')).toBe('');
    expect(git(repository.workTree, 'symbolic-ref', 'HEAD')).toBe('refs/heads/citadel/f/branch-a');
    // Nothing of it is registered with, or stored in, the operator's repository.
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(git(repo, 'branch', '--list', 'citadel/*')).toBe('');

    writeFiles(repository.workTree, { 'work.txt': 'kept\n' });
    expect(await ensureBranchRepository(baseDir, repository, 'citadel/f/branch-a')).toEqual({ head: base, created: false });
    expect(existsSync(path.join(repository.workTree, 'work.txt'))).toBe(true);
    await expect(ensureBranchRepository(baseDir, repository, 'citadel/f/other')).rejects.toMatchObject({ code: 'WORKTREE_CONFLICT' });
  });

  it('redoes a try cut short before its git dir was in place', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    const { baseDir } = await makeBranchRepository(root, repo, 'branch-a');
    const repository = { gitDir: path.join(root, 'repositories', 'branch-b.git'), workTree: path.join(root, 'worktrees', 'branch-b') };
    mkdirSync(`${repository.gitDir}.partial`, { recursive: true });
    writeFiles(repository.workTree, { 'half.txt': 'left by a crash\n' });

    expect((await ensureBranchRepository(baseDir, repository, 'citadel/f/branch-b')).created).toBe(true);
    expect(existsSync(path.join(repository.workTree, 'half.txt'))).toBe(false);
    expect(existsSync(`${repository.gitDir}.partial`)).toBe(false);
  });
});

describe('deliverResult', () => {
  it('fetches the commit into the operator\'s repository and creates the branch there, once', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    const { repository } = await makeBranchRepository(root, repo, 'branch-a');
    const result = commitFiles(repository.workTree, 'result', { 'result.txt': 'result\n' });
    expect(objectsOf(path.join(repo, '.git'))).not.toContain(result);

    const deliver = async (commit: string) => deliverResult(repo, repository, 'citadel/f/branch-a', commit, await resultBranchHead(repo, 'citadel/f/branch-a'));
    expect(await deliver(result)).toBe('delivered');
    expect(git(repo, 'rev-parse', 'refs/heads/citadel/f/branch-a')).toBe(result);
    expect(git(repo, 'show', 'citadel/f/branch-a:result.txt')).toBe('result');
    // A retry after a crash finds it done; a branch at anything else is refused, not moved.
    expect(await deliver(result)).toBe('already');
    const base = git(repo, 'rev-parse', 'main');
    await expect(deliver(base)).rejects.toMatchObject({ code: 'WORKTREE_CONFLICT' });
    expect(git(repo, 'rev-parse', 'refs/heads/citadel/f/branch-a')).toBe(result);
    // A branch created after the read is not overwritten: creation still expects it absent.
    git(repo, 'branch', 'citadel/f/branch-b', 'main');
    await expect(deliverResult(repo, repository, 'citadel/f/branch-b', result, null)).rejects.toMatchObject({ code: 'GIT_FAILED' });
    expect(git(repo, 'rev-parse', 'refs/heads/citadel/f/branch-b')).toBe(base);
  });

  it('reads the result branch and its leading parts in one lookup: a leading part is refused, a ref that only ends like one is not', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    const base = git(repo, 'rev-parse', 'main');
    expect(await resultBranchHead(repo, 'citadel/f/branch-a')).toBeNull();
    // show-ref matches the last components of any ref: these end like the names but are not branches.
    git(repo, 'update-ref', 'refs/notes/refs/heads/citadel/f', base);
    git(repo, 'update-ref', 'refs/tags/refs/heads/citadel/f/branch-a', base);
    expect(await resultBranchHead(repo, 'citadel/f/branch-a')).toBeNull();
    await assertDeliveryNamespaceFree(repo, ['citadel/f/branch-a', 'citadel/f/branch-b']);
    git(repo, 'branch', 'citadel/f/branch-a', base);
    expect(await resultBranchHead(repo, 'citadel/f/branch-a')).toBe(base);
    await expect(assertDeliveryNamespaceFree(repo, ['citadel/f/branch-b', 'citadel/f/branch-a'])).rejects.toMatchObject({ code: 'BRANCH_NAMESPACE_CONFLICT', details: { ref: 'refs/heads/citadel/f/branch-a' } });
    git(repo, 'branch', '-D', 'citadel/f/branch-a');
    git(repo, 'branch', 'citadel/f', base);
    await expect(resultBranchHead(repo, 'citadel/f/branch-a')).rejects.toMatchObject({ code: 'BRANCH_NAMESPACE_CONFLICT', details: { ref: 'refs/heads/citadel/f' } });
    await expect(assertDeliveryNamespaceFree(repo, ['citadel/f/branch-a'])).rejects.toMatchObject({ code: 'BRANCH_NAMESPACE_CONFLICT', details: { ref: 'refs/heads/citadel/f' } });
    await expect(resultBranchHead(repo, 'citadel/f/bad..name')).rejects.toMatchObject({ code: 'GIT_REF_INVALID' });
    await expect(assertDeliveryNamespaceFree(repo, ['citadel/g/ok', 'citadel/g/-x/..'])).rejects.toMatchObject({ code: 'GIT_REF_INVALID' });
  });

  it('removeBranchRepository removes the git dir and the work tree, and says when nothing was there', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    const { repository } = await makeBranchRepository(root, repo, 'branch-a');
    expect(await removeBranchRepository(repository)).toBe(true);
    expect(existsSync(repository.gitDir) || existsSync(repository.workTree)).toBe(false);
    expect(await removeBranchRepository(repository)).toBe(false);
  });
});

describe('runGit on a branch repository', () => {
  it('names the recorded git dir and ignores replace objects, where plain git follows the .git file and the replace ref', async () => {
    const root = realpathSync(tempDir());
    const repo = makeRepo(root);
    const { repository, base } = await makeBranchRepository(root, repo, 'branch-a');
    const replacement = git(repository.workTree, 'commit-tree', '-m', 'replacement', git(repository.workTree, 'write-tree'));
    git(repository.workTree, 'replace', base, replacement);
    expect(git(repository.workTree, 'log', '-1', '--format=%s', base)).toBe('replacement');
    const other = makeRepo(tempDir());
    writeFiles(repository.workTree, { '.git': `gitdir: ${path.join(other, '.git')}\n` });
    expect(git(repository.workTree, 'rev-parse', '--absolute-git-dir')).toBe(path.join(other, '.git'));

    const gitDir = await runGit(repository, ['rev-parse', '--absolute-git-dir']);
    expect(gitDir.stdout.toString('utf8').trim()).toBe(repository.gitDir);
    const subject = await runGit(repository, ['log', '-1', '--format=%s', base]);
    expect(subject.stdout.toString('utf8').trim()).toBe('initial');
    rmSync(path.join(repository.workTree, '.git'));
  });
});
