/**
 * `.worktreeinclude` (issue 13): which ignored files of the operator's checkout are chosen, what is
 * refused, and how the copies are made and checked. Real git repositories in temp dirs.
 */
import { chmodSync, existsSync, linkSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Digest } from '../../../shared/digest';
import {
  changedWorktreeIncludes,
  copyWorktreeIncludes,
  excludeWorktreeIncludes,
  parseWorktreeInclude,
  resolveWorktreeIncludes,
  storeWorktreeIncludes,
  WORKTREE_INCLUDE_LIMITS,
} from '../../../main/workspace/worktree-include';
import { git, includeRepository, refusalOf, write } from '../../support/include-repository';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const repository = (include: string | null): string => includeRepository(tempDir('wti-'), include);

const refusal = async (promise: Promise<unknown>): Promise<string> => (await refusalOf(promise)).code;

describe('parseWorktreeInclude', () => {
  it('keeps gitignore patterns and drops comments, blank lines and trailing spaces', () => {
    expect(parseWorktreeInclude('# local files\n\n.env   \n!config/keep.json\nconfig/*.json\r\n/anchored\n')).toEqual(['.env', '!config/keep.json', 'config/*.json', '/anchored']);
  });

  it.each(['../outside.env', 'config/../../x', '!../negated', '/..'])('refuses %s as outside the repository', (line) => {
    expect(() => parseWorktreeInclude(`.env\n${line}\n`)).toThrow(expect.objectContaining({ code: 'WORKTREE_INCLUDE_OUTSIDE' }));
  });

  it('does not mistake a name with dots for a climb', () => {
    expect(parseWorktreeInclude('..env\nconfig/..local\n')).toEqual(['..env', 'config/..local']);
  });
});

describe('resolveWorktreeIncludes', () => {
  it('is null without a .worktreeinclude', async () => {
    expect(await resolveWorktreeIncludes(repository(null))).toBeNull();
  });

  it('chooses the matched files git ignores, with their digests, and skips matched files git does not ignore', async () => {
    const root = repository('.env\nconfig/local.json\nnotes.txt\nmissing.env\n');
    const chosen = await resolveWorktreeIncludes(root);
    expect(chosen?.entries).toEqual([
      { path: '.env', digest: sha256Digest('SECRET=hunter2\n'), size_bytes: 15 },
      { path: 'config/local.json', digest: sha256Digest('{"local":true}\n'), size_bytes: 15 },
    ]);
    expect(chosen?.contents.get(sha256Digest('SECRET=hunter2\n'))?.toString()).toBe('SECRET=hunter2\n');
  });

  it('matches with gitignore semantics: globs, anchoring and negation, as git does', async () => {
    const root = repository('*.log\n!debug.log\n/top.env\n');
    write(root, 'a.log', 'a');
    write(root, 'sub/b.log', 'b');
    write(root, 'debug.log', 'd');
    write(root, 'top.env', 't');
    write(root, 'sub/top.env', 'not anchored here');
    writeFileSync(path.join(root, '.git', 'info', 'exclude'), '*.env\n');
    const chosen = await resolveWorktreeIncludes(root);
    expect(chosen?.entries.map((e) => e.path)).toEqual(['a.log', 'sub/b.log', 'top.env']);
  });

  it('refuses a file the base revision tracks though the index does not: the copy would be committed with the result', async () => {
    const root = repository('.env\n');
    // HEAD tracks .env (a placeholder); `git rm --cached` left it ignored and untracked in the index only.
    git(root, 'add', '-f', '.env');
    git(root, 'commit', '-q', '-m', 'a placeholder env');
    git(root, 'rm', '-q', '--cached', '.env');
    expect(await refusal(resolveWorktreeIncludes(root))).toBe('WORKTREE_INCLUDE_TRACKED');
  });

  it("refuses against the base it is given (a follow-up's parent result), not only HEAD", async () => {
    const root = repository('.env\nconfig/local.json\n');
    const head = git(root, 'rev-parse', 'HEAD').trim();
    // An agent's result that committed .env; the operator's own branch never did.
    git(root, 'checkout', '-q', '-b', 'agent');
    git(root, 'add', '-f', '.env');
    git(root, 'commit', '-q', '-m', 'agent result');
    const agent = git(root, 'rev-parse', 'HEAD').trim();
    git(root, 'rm', '-q', '--cached', '.env');
    git(root, 'commit', '-q', '-m', 'untrack');
    git(root, 'checkout', '-q', 'main');
    expect((await resolveWorktreeIncludes(root, head))?.entries.map((e) => e.path)).toEqual(['.env', 'config/local.json']);
    const error = await refusalOf(resolveWorktreeIncludes(root, agent));
    expect(error.code).toBe('WORKTREE_INCLUDE_TRACKED');
    expect(error.details).toEqual({ paths: ['.env'] });
  });

  it('refuses a pattern that matches a tracked file', async () => {
    expect(await refusal(resolveWorktreeIncludes(repository('.env\nconfig/*.json\n')))).toBe('WORKTREE_INCLUDE_TRACKED');
  });

  it('refuses an ignored symlink, even to a file inside the repository', async () => {
    const root = repository('.env\nlinked.log\n');
    symlinkSync('.env', path.join(root, 'linked.log'));
    expect(await refusal(resolveWorktreeIncludes(root))).toBe('WORKTREE_INCLUDE_SYMLINK');
  });

  it('refuses an ignored hard link, even to a file inside the repository', async () => {
    const root = repository('*.log\n');
    write(root, 'a.log', 'a');
    linkSync(path.join(root, 'a.log'), path.join(root, 'b.log'));
    expect(await refusal(resolveWorktreeIncludes(root))).toBe('WORKTREE_INCLUDE_OUTSIDE');
  });

  it('refuses a .worktreeinclude that is itself a symlink', async () => {
    const root = repository(null);
    write(root, 'elsewhere.txt', '.env\n');
    symlinkSync('elsewhere.txt', path.join(root, '.worktreeinclude'));
    expect(await refusal(resolveWorktreeIncludes(root))).toBe('WORKTREE_INCLUDE_SYMLINK');
  });

  it('refuses a pattern outside the repository', async () => {
    expect(await refusal(resolveWorktreeIncludes(repository('.env\n../other/.env\n')))).toBe('WORKTREE_INCLUDE_OUTSIDE');
  });

  it('refuses a dependency folder by its file count, and a file over the size cap', async () => {
    const root = repository('node_modules\n');
    for (let i = 0; i <= WORKTREE_INCLUDE_LIMITS.files; i++) write(root, `node_modules/pkg/f${i}.js`, 'x');
    expect(await refusal(resolveWorktreeIncludes(root))).toBe('WORKTREE_INCLUDE_TOO_LARGE');

    const big = repository('big.log\n');
    write(big, 'big.log', 'x'.repeat(WORKTREE_INCLUDE_LIMITS.fileBytes + 1));
    expect(await refusal(resolveWorktreeIncludes(big))).toBe('WORKTREE_INCLUDE_TOO_LARGE');
  });

  it('accepts a folder of a few ignored files (under the caps)', async () => {
    const root = repository('node_modules/\n');
    write(root, 'node_modules/pkg/index.js', 'module.exports = 1;\n');
    expect((await resolveWorktreeIncludes(root))?.entries.map((e) => e.path)).toEqual(['node_modules/pkg/index.js']);
  });
});

describe('storing, copying and checking the copies', () => {
  async function prepared() {
    const root = repository('.env\nconfig/local.json\n');
    const chosen = await resolveWorktreeIncludes(root);
    if (chosen === null) throw new Error('no includes');
    const store = path.join(tempDir('wti-store-'), 'worktree-include');
    await storeWorktreeIncludes(store, chosen);
    const worktree = tempDir('wti-worktree-');
    return { chosen, store, worktree };
  }

  it('copies each file from the store (0600), making its folders, and finds the copies unchanged', async () => {
    const { chosen, store, worktree } = await prepared();
    await copyWorktreeIncludes(store, worktree, chosen.entries);
    expect(readFileSync(path.join(worktree, '.env'), 'utf8')).toBe('SECRET=hunter2\n');
    expect(readFileSync(path.join(worktree, 'config', 'local.json'), 'utf8')).toBe('{"local":true}\n');
    expect(statSync(path.join(worktree, '.env')).mode & 0o777).toBe(0o600);
    expect(await changedWorktreeIncludes(worktree, chosen.entries)).toEqual([]);
    // Copying again (a retry, or after the verifier's clean) puts back what was there.
    writeFileSync(path.join(worktree, '.env'), 'SECRET=changed\n');
    await copyWorktreeIncludes(store, worktree, chosen.entries);
    expect(readFileSync(path.join(worktree, '.env'), 'utf8')).toBe('SECRET=hunter2\n');
  });

  it('reports a copy edited, removed or replaced by a link', async () => {
    const { chosen, store, worktree } = await prepared();
    await copyWorktreeIncludes(store, worktree, chosen.entries);
    writeFileSync(path.join(worktree, '.env'), 'SECRET=hunter3\n');
    expect(await changedWorktreeIncludes(worktree, chosen.entries)).toEqual(['.env']);
    rmSync(path.join(worktree, '.env'));
    symlinkSync('config/local.json', path.join(worktree, '.env'));
    rmSync(path.join(worktree, 'config', 'local.json'));
    expect(await changedWorktreeIncludes(worktree, chosen.entries)).toEqual(['.env', 'config/local.json']);
  });

  it('refuses to write through a symlink in the worktree, and a stored copy that no longer matches its digest', async () => {
    const { chosen, store, worktree } = await prepared();
    const outside = tempDir('wti-outside-');
    symlinkSync(outside, path.join(worktree, 'config'));
    expect(await refusal(copyWorktreeIncludes(store, worktree, chosen.entries))).toBe('WORKTREE_INCLUDE_SYMLINK');
    expect(existsSync(path.join(outside, 'local.json'))).toBe(false);

    const clean = tempDir('wti-worktree-');
    const stored = path.join(store, sha256Digest('SECRET=hunter2\n').slice('sha256:'.length));
    chmodSync(stored, 0o600);
    writeFileSync(stored, 'tampered');
    expect(await refusal(copyWorktreeIncludes(store, clean, chosen.entries))).toBe('WORKTREE_INCLUDE_INVALID');
  });

  it('makes the branch repository ignore the copies, whatever ignored them in the operator checkout', async () => {
    const repo = tempDir('wti-branch-');
    git(repo, 'init', '-q', '-b', 'main');
    const entries = [
      { path: '.env', digest: sha256Digest('a'), size_bytes: 1 },
      { path: 'odd [name]*.json', digest: sha256Digest('b'), size_bytes: 1 },
    ];
    write(repo, '.env', 'a');
    write(repo, 'odd [name]*.json', 'b');
    write(repo, 'odd n.json', 'not excluded');
    await excludeWorktreeIncludes(path.join(repo, '.git'), entries);
    await excludeWorktreeIncludes(path.join(repo, '.git'), entries);
    expect(git(repo, 'status', '--porcelain', '--untracked-files=all').trim()).toBe('?? "odd n.json"');
    expect(readFileSync(path.join(repo, '.git', 'info', 'exclude'), 'utf8').match(/citadel:/g)).toHaveLength(1);
  });
});
