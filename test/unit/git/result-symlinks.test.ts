/**
 * The result-symlink scan (issue 12, "verified is what lands"): which links a branch added or
 * changed point out of the worktree, resolved through the tree's own links, read from git objects.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanResultSymlinks, symlinkEscape, type LinkLookup } from '../../../main/git/result-symlinks';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const lookupOf = (links: Record<string, string | null>): LinkLookup => (p) => (p in links ? Promise.resolve(links[p] ?? null) : undefined);

describe('symlinkEscape', () => {
  it.each([
    ['an absolute target', { leak: '/etc/passwd' }, 'leak', 'absolute'],
    ['an absolute target that names a path inside the tree', { self: '/work/tree/src' }, 'self', 'absolute'],
    ['a climb above the root', { up: '../../../x' }, 'up', 'outside'],
    ['a climb above the root from a directory', { 'src/up': '../../x' }, 'src/up', 'outside'],
    ['a chain whose last link climbs out', { a: 'b', b: '../..' }, 'a', 'outside'],
    // Lexically sub/deep/b/.. is sub/deep; through b (the root) it is the root's parent.
    ['a link through another link that is itself inside', { 'sub/deep/b': '../..', a: 'sub/deep/b/..' }, 'a', 'outside'],
    ['a loop', { a: 'b', b: 'a' }, 'a', 'unresolvable'],
    ['a target no path can be (a NUL, or too long)', { a: null }, 'a', 'unresolvable'],
    ['a chain through a link to an absolute path', { a: 'b/x', b: '/etc' }, 'a', 'absolute'],
  ] as const)('refuses %s', async (_name, links, link, reason) => {
    expect(await symlinkEscape(link, lookupOf(links))).toBe(reason);
  });

  it.each([
    ['a file beside it', { alias: 'src/sum.js' }, 'alias'],
    ['a parent inside the tree', { 'src/up': '..' }, 'src/up'],
    ['a climb out and back in that never leaves', { 'src/a': '../src/./sum.js' }, 'src/a'],
    ['a chain that stays inside', { a: 'sub/b', 'sub/b': '../c', c: 'src' }, 'a'],
    ['a missing target inside', { dangling: 'nowhere/at/all' }, 'dangling'],
  ] as const)('keeps %s', async (_name, links, link) => {
    expect(await symlinkEscape(link, lookupOf(links))).toBeNull();
  });
});

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();

describe('scanResultSymlinks', () => {
  it('lists the links the result added or changed and refuses those that point out; base links are followed, never refused', async () => {
    const repo = tempDir('citadel-links-');
    mkdirSync(path.join(repo, 'src'));
    writeFileSync(path.join(repo, 'src', 'sum.js'), 'x\n');
    writeFileSync(path.join(repo, 'was-a-file'), 'x\n');
    symlinkSync('/etc/hostname', path.join(repo, 'base-out'));
    symlinkSync('..', path.join(repo, 'src', 'parent'));
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    const base = git(repo, 'rev-parse', 'HEAD');

    symlinkSync('/etc/passwd', path.join(repo, 'leak'));
    symlinkSync('src/sum.js', path.join(repo, 'alias'));
    // Inside only lexically: src/parent is the root, so src/parent/.. is above it.
    symlinkSync('src/parent/..', path.join(repo, 'through-base-link'));
    rmSync(path.join(repo, 'was-a-file'));
    symlinkSync('../outside', path.join(repo, 'was-a-file'));
    writeFileSync(path.join(repo, 'src', 'new.js'), 'y\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'result');

    const scan = await scanResultSymlinks({ gitDir: path.join(repo, '.git'), workTree: repo }, base, 'HEAD');
    expect(scan).toEqual({
      scanned: ['alias', 'leak', 'through-base-link', 'was-a-file'],
      escaping: [
        { path: 'leak', reason: 'absolute' },
        { path: 'through-base-link', reason: 'outside' },
        { path: 'was-a-file', reason: 'outside' },
      ],
    });
    // Nothing added: nothing scanned, however the base's own links point.
    expect(await scanResultSymlinks({ gitDir: path.join(repo, '.git'), workTree: repo }, base, base)).toEqual({ scanned: [], escaping: [] });
  });
});
