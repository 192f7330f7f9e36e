/**
 * Issue 27: a setup step's npm cache is its own folder, seeded by copy from Citadel's store of
 * digest-checked tarballs (taken from the operator's cache, read only), and what the step leaves
 * enters the store only when its bytes match the digest its path names.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockedPackages, sha512sOf } from '../../../main/setup/npm-lock';
import { assertCacheRootSafe, contentPath, openStepNpmCache } from '../../../main/setup/npm-cache';
import { IS_NUMBER_TARBALL, NPM_LOCKFILE, warmOfflineNpmCache } from '../../support/npm-project';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const IS_NUMBER = sha512sOf(NPM_LOCKFILE.packages['node_modules/is-number'].integrity)[0] ?? '';

function project(): string {
  const worktree = tempDir('citadel-npm-cache-wt-');
  writeFileSync(path.join(worktree, 'package-lock.json'), JSON.stringify(NPM_LOCKFILE));
  return worktree;
}

function listStore(root: string): string[] {
  const store = path.join(root, 'npm', 'verified');
  return existsSync(store) ? readdirSync(store, { recursive: true, encoding: 'utf8' }).filter((name) => /[0-9a-f]{128}$/.test(name)) : [];
}

describe('the step npm cache', () => {
  it('seeds what the lock pins from the operator cache, checked, into a fresh folder that close removes', async () => {
    const operator = tempDir('citadel-npm-operator-');
    warmOfflineNpmCache(operator);
    const root = tempDir('citadel-npm-root-');
    const cache = await openStepNpmCache(root, project(), { cache: operator, registry: 'https://registry.npmjs.org/' });
    expect(cache.dir.startsWith(path.join(root, 'npm', 'steps'))).toBe(true);
    const seeded = contentPath(cache.dir, IS_NUMBER);
    expect(createHash('sha512').update(readFileSync(seeded)).digest('hex')).toBe(IS_NUMBER);
    // Nothing but content: no index entry, no _npx.
    expect(readdirSync(path.join(cache.dir, '_cacache'))).toEqual(['content-v2']);
    await cache.close(null);
    expect(existsSync(cache.dir)).toBe(false);
    expect(listStore(root)).toHaveLength(1);
    // The next step is seeded from the store, without the operator's cache.
    const next = await openStepNpmCache(root, project(), null);
    expect(existsSync(contentPath(next.dir, IS_NUMBER))).toBe(true);
    await next.close(null);
  });

  it('only a pinned tarball the store lacked enters it, when its bytes match: not a forged one, not an unpinned one, not a sparse one, not through a symlinked folder', async () => {
    const operator = tempDir('citadel-npm-operator-');
    const forged = contentPath(operator, IS_NUMBER);
    mkdirSync(path.dirname(forged), { recursive: true });
    writeFileSync(forged, 'module.exports = () => true;');
    const root = tempDir('citadel-npm-root-');
    const source = { cache: operator, registry: 'https://registry.npmjs.org/' };
    const plant = (dir: string, hex: string, bytes: Buffer | string) => {
      mkdirSync(path.dirname(contentPath(dir, hex)), { recursive: true });
      writeFileSync(contentPath(dir, hex), bytes);
    };
    const genuine = readFileSync(IS_NUMBER_TARBALL);
    const unpinned = Buffer.from('a genuine tarball the lock does not pin');
    const unpinnedHex = createHash('sha512').update(unpinned).digest('hex');

    // The operator's forged copy is not seeded; what the step leaves under the pinned digest is checked.
    const first = await openStepNpmCache(root, project(), source);
    expect(existsSync(contentPath(first.dir, IS_NUMBER))).toBe(false);
    plant(first.dir, IS_NUMBER, 'forged');
    plant(first.dir, unpinnedHex, unpinned);
    mkdirSync(path.join(first.dir, '_npx', '0123456789abcdef', 'node_modules'), { recursive: true });
    await first.close(null);
    expect(listStore(root)).toEqual([]);

    // A lock may pin the digest of 64 MiB of zeros, which a step makes for free as a sparse file: it is skipped.
    const zeros = createHash('sha512').update(Buffer.alloc(64 * 1024 * 1024)).digest();
    const zerosLock = project();
    writeFileSync(path.join(zerosLock, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { 'node_modules/zeros': { version: '1.0.0', integrity: `sha512-${zeros.toString('base64')}` } } }));
    const sparse = await openStepNpmCache(root, zerosLock, null);
    plant(sparse.dir, zeros.toString('hex'), '');
    truncateSync(contentPath(sparse.dir, zeros.toString('hex')), 64 * 1024 * 1024);
    await sparse.close(null);
    expect(listStore(root)).toEqual([]);

    // A symlinked folder on the way is not followed, even to the genuine bytes.
    const elsewhere = tempDir('citadel-npm-elsewhere-');
    plant(elsewhere, IS_NUMBER, genuine);
    const linked = await openStepNpmCache(root, project(), null);
    mkdirSync(path.join(linked.dir, '_cacache', 'content-v2'), { recursive: true });
    symlinkSync(path.join(elsewhere, '_cacache', 'content-v2', 'sha512'), path.join(linked.dir, '_cacache', 'content-v2', 'sha512'));
    await linked.close(null);
    expect(listStore(root)).toEqual([]);

    // The genuine tarball, fetched by a step, enters and seeds the next step.
    const fetched = await openStepNpmCache(root, project(), null);
    plant(fetched.dir, IS_NUMBER, genuine);
    await fetched.close(null);
    expect(listStore(root).map((name) => path.basename(name))).toEqual([IS_NUMBER]);
    const next = await openStepNpmCache(root, project(), null);
    expect(readFileSync(contentPath(next.dir, IS_NUMBER))).toEqual(genuine);
    await next.close(null);
  });

  it('a crafted lock seeds only pinned packages with npm names, however many entries it holds', async () => {
    const worktree = tempDir('citadel-npm-lock-');
    const packages: Record<string, unknown> = { '': { name: 'x' } };
    for (let i = 0; i < 20_000; i += 1) packages[`node_modules/p${i}`] = { version: '1.0.0' };
    packages['node_modules/..'] = { version: '1.0.0', integrity: NPM_LOCKFILE.packages['node_modules/is-number'].integrity };
    packages['node_modules/is-number'] = NPM_LOCKFILE.packages['node_modules/is-number'];
    writeFileSync(path.join(worktree, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages }));
    const locked = await lockedPackages(worktree);
    expect(locked.sha512s).toEqual([IS_NUMBER]);
    expect(locked.packages).toEqual([{ name: 'is-number', version: '7.0.0', sha512: IS_NUMBER }]);
  });

  it('a cache root that is or holds the home, or overlaps Citadel home or the repository, is refused', () => {
    const home = '/home/op';
    const bounds = { home, citadelHome: '/home/op/.local/share/citadel', repository: '/home/op/src/app' };
    expect(() => assertCacheRootSafe('/home/op/.cache/citadel', bounds)).not.toThrow();
    for (const root of ['/home/op', '/home', '/home/op/.local/share/citadel/cache', '/home/op/.local/share', '/home/op/src/app/.cache', '/home/op/src']) {
      expect(() => assertCacheRootSafe(root, bounds), root).toThrow(expect.objectContaining({ code: 'SETUP_CACHE_UNSAFE' }));
    }
  });
});
