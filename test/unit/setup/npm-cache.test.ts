/**
 * Issue 27: a setup step's npm cache is its own folder, seeded by copy from Citadel's store of
 * digest-checked tarballs (taken from the operator's cache, read only), and what the step leaves
 * enters the store only when its bytes match the digest its path names.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha512sOf } from '../../../main/setup/npm-lock';
import { assertCacheRootSafe, contentPath, openStepNpmCache } from '../../../main/setup/npm-cache';
import { NPM_LOCKFILE, warmOfflineNpmCache } from '../../support/npm-project';
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
    await cache.close();
    expect(existsSync(cache.dir)).toBe(false);
    expect(listStore(root)).toHaveLength(1);
    // The next step is seeded from the store, without the operator's cache.
    const next = await openStepNpmCache(root, project(), null);
    expect(existsSync(contentPath(next.dir, IS_NUMBER))).toBe(true);
    await next.close();
  });

  it('a forged tarball in the operator cache or left by a step never enters the store', async () => {
    const operator = tempDir('citadel-npm-operator-');
    const forged = contentPath(operator, IS_NUMBER);
    mkdirSync(path.dirname(forged), { recursive: true });
    writeFileSync(forged, 'module.exports = () => true;');
    const root = tempDir('citadel-npm-root-');
    const cache = await openStepNpmCache(root, project(), { cache: operator, registry: 'https://registry.npmjs.org/' });
    expect(existsSync(contentPath(cache.dir, IS_NUMBER))).toBe(false);
    // What a step plants: a forged tarball under a real digest, a genuine new one, an _npx install.
    const planted = contentPath(cache.dir, IS_NUMBER);
    mkdirSync(path.dirname(planted), { recursive: true });
    writeFileSync(planted, 'forged');
    const genuine = Buffer.from('a genuine tarball');
    const genuineHex = createHash('sha512').update(genuine).digest('hex');
    mkdirSync(path.dirname(contentPath(cache.dir, genuineHex)), { recursive: true });
    writeFileSync(contentPath(cache.dir, genuineHex), genuine);
    mkdirSync(path.join(cache.dir, '_npx', '0123456789abcdef', 'node_modules'), { recursive: true });
    await cache.close();
    expect(listStore(root).map((name) => path.basename(name))).toEqual([genuineHex]);
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
