import { createHash, randomBytes } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, mkdtemp, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CitadelError } from '../../shared/errors';
import { isWithin } from '../../shared/sandbox/containment-policy';
import { lockedPackages, sha512sOf } from './npm-lock';
import type { NpmConfig } from './package-toolchain';

type Env = Readonly<Record<string, string | undefined>>;

/** An index bucket (cacache's per-key log of entries) larger than this is not copied. */
const MAX_BUCKET_BYTES = 1024 * 1024;
/** A package tarball larger than this is neither imported nor promoted (npm fetches it again). */
const MAX_TARBALL_BYTES = 1024 * 1024 * 1024;
/** npm keeps at most 10 logs; each is small unless something is wrong. */
const MAX_LOG_FILES = 10;
const MAX_LOG_BYTES = 4 * 1024 * 1024;
/** What one step may add to the store: past it, the rest of its downloads are fetched again next time. */
const MAX_PROMOTED_BYTES = 4 * 1024 * 1024 * 1024;
// A reflink where the file system has them (a copy costs nothing), a plain copy elsewhere.
const CLONE = constants.COPYFILE_FICLONE;

/**
 * Citadel's own cache folder: $XDG_CACHE_HOME/citadel (else ~/.cache/citadel; ~/Library/Caches/
 * Citadel on macOS). Citadel writes it; no sandbox ever sees it whole.
 */
export function citadelCacheRoot(env: Env, platform = process.platform): string {
  const home = env.HOME ?? os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Caches', 'Citadel');
  return path.join(env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(home, '.cache'), 'citadel');
}

/** The places a setup cache must neither be nor hold: the operator's home, Citadel's home, the repository. */
export interface CacheBoundaries {
  readonly home: string;
  readonly citadelHome: string;
  readonly repository: string;
}

/**
 * Refuses a cache root that is, holds or lies in Citadel's home or the repository, or is or holds
 * the home: a step's writable cache must never reach the signing keys, the fork records, the
 * operator's dotfiles or the code under comparison (SETUP_CACHE_UNSAFE).
 */
export function assertCacheRootSafe(root: string, boundaries: CacheBoundaries): void {
  const overlaps = (a: string, b: string) => isWithin(a, b) || isWithin(b, a);
  const clash =
    isWithin(path.resolve(boundaries.home), root) ? `the home ${boundaries.home}` :
    overlaps(root, path.resolve(boundaries.citadelHome)) ? `Citadel's home ${boundaries.citadelHome}` :
    overlaps(root, path.resolve(boundaries.repository)) ? `the repository ${boundaries.repository}` : null;
  if (clash !== null) {
    throw new CitadelError('SETUP_CACHE_UNSAFE', `Citadel's package cache ${root} overlaps ${clash}; set XDG_CACHE_HOME to a folder of its own`, { details: { cache_root: root } });
  }
}

/** One setup step's npm cache: its own folder, seeded with the verified tarballs its lock pins. */
export interface StepNpmCache {
  /** What npm is told (`npm_config_cache`): the only cache folder the step can write. */
  readonly dir: string;
  /**
   * Takes the step's new tarballs that match their digest into the verified store, keeps npm's
   * logs in `logsTo` (its error messages point into the cache), then removes the folder. Answers a
   * line for the step's output when logs were kept.
   */
  close(logsTo: string | null): Promise<string[]>;
}

/** The operator's npm cache and registry, read only (never mounted, never written). */
type OperatorNpm = Pick<NpmConfig, 'cache' | 'registry'>;

/**
 * Opens a fresh npm cache for one setup step (design: one writable cache per step, seeded by copy
 * from a Citadel-owned store that only digest-checked tarballs enter, so nothing a step writes
 * (an `_npx` install, an index entry, a forged tarball) reaches another step or the operator's
 * tools). Tarballs come from the store, else from the operator's own npm cache (checked on the way
 * in), for exactly the sha512 digests the worktree's lock pins. For a package whose tarball is
 * there, its registry index entries are copied from the operator's cache alone (a lock without
 * `resolved` URLs needs them to install offline; `npm ci` still checks every tarball against the
 * lock). When the step ends, only the pinned tarballs that were missing may enter the store.
 */
export async function openStepNpmCache(root: string, worktree: string, operator: OperatorNpm | null): Promise<StepNpmCache> {
  const store = path.join(root, 'npm', 'verified');
  const steps = path.join(root, 'npm', 'steps');
  await mkdir(store, { recursive: true, mode: 0o700 });
  await mkdir(steps, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(path.join(steps, 'step-'));
  const missing = new Set<string>();
  try {
    const locked = await lockedPackages(worktree);
    for (const hex of locked.sha512s) {
      const stored = storePath(store, hex);
      const present = (await isRegularFile(stored)) || (operator !== null && (await importVerified(contentPath(operator.cache, hex), store, hex)));
      if (present) await copyInto(stored, contentPath(dir, hex));
      else missing.add(hex);
    }
    if (operator !== null) {
      const base = withSlash(operator.registry);
      for (const pkg of locked.packages.filter((p) => !missing.has(p.sha512))) {
        await copyIndexEntry(operator, dir, store, new URL(pkg.name.replace('/', '%2f'), base).href, null);
        await copyIndexEntry(operator, dir, store, new URL(`${pkg.name}/-/${pkg.name.slice(pkg.name.indexOf('/') + 1)}-${pkg.version}.tgz`, base).href, pkg.sha512);
      }
    }
  } catch (cause) {
    await rm(dir, { recursive: true, force: true });
    throw cause;
  }
  return {
    dir,
    close: async (logsTo) => {
      try {
        await promote(dir, store, missing);
        return logsTo === null ? [] : await keepLogs(path.join(dir, '_logs'), logsTo);
      } finally {
        // A folder the step made unremovable (a mode it set) is left, not allowed to fail the step's record.
        await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      }
    },
  };
}

/** npm's own log files of a step (regular files, bounded), copied privately where the step's output is kept. */
async function keepLogs(logs: string, logsTo: string): Promise<string[]> {
  const names = await readdir(logs).catch(() => [] as string[]);
  let kept = 0;
  for (const name of names.filter((n) => n.endsWith('.log')).slice(0, MAX_LOG_FILES)) {
    const info = await lstat(path.join(logs, name)).catch(() => null);
    if (info === null || !info.isFile() || info.size > MAX_LOG_BYTES) continue;
    await mkdir(logsTo, { recursive: true, mode: 0o700 });
    await copyFile(path.join(logs, name), path.join(logsTo, name));
    await chmod(path.join(logsTo, name), 0o600);
    kept += 1;
  }
  return kept === 0 ? [] : [`npm's logs of this step are kept in ${logsTo} (the step's cache folder, which npm names above, is removed)`];
}

/**
 * The lines of the operator cache's index bucket for one registry address (its document, or its
 * tarball at the registry's usual address when `tarball` names the digest it must have) whose
 * content is in the store; the copy is the step's own, and nothing it changes goes anywhere.
 */
async function copyIndexEntry(operator: OperatorNpm, dir: string, store: string, url: string, tarball: string | null): Promise<void> {
  const key = `make-fetch-happen:request-cache:${url}`;
  const source = bucketPath(operator.cache, key);
  const info = await lstat(source).catch(() => null);
  if (info === null || !info.isFile() || info.size > MAX_BUCKET_BYTES) return;
  const kept: string[] = [];
  for (const line of (await readFile(source, 'utf8')).split('\n')) {
    const entry = bucketEntry(line, key);
    if (entry === null || (tarball !== null && entry !== tarball)) continue;
    const stored = storePath(store, entry);
    if (!(await isRegularFile(stored)) && !(await importVerified(contentPath(operator.cache, entry), store, entry))) continue;
    await copyInto(stored, contentPath(dir, entry));
    kept.push(line);
  }
  if (kept.length === 0) return;
  await mkdir(path.dirname(bucketPath(dir, key)), { recursive: true });
  await writeFile(bucketPath(dir, key), `${kept.join('\n')}\n`);
}

/** The sha512 (hex) of a bucket line for `key` whose own checksum holds (cacache's format: `sha1(json)\tjson`). */
function bucketEntry(line: string, key: string): string | null {
  const tab = line.indexOf('\t');
  if (tab === -1) return null;
  const json = line.slice(tab + 1);
  if (createHash('sha1').update(json).digest('hex') !== line.slice(0, tab)) return null;
  try {
    const entry = JSON.parse(json) as { key?: unknown; integrity?: unknown };
    return entry.key === key && typeof entry.integrity === 'string' ? (sha512sOf(entry.integrity)[0] ?? null) : null;
  } catch {
    return null;
  }
}

function bucketPath(npmCache: string, key: string): string {
  const hex = createHash('sha256').update(key).digest('hex');
  return path.join(npmCache, '_cacache', 'index-v5', hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
}

const withSlash = (url: string): string => (url.endsWith('/') ? url : `${url}/`);

async function copyInto(stored: string, target: string): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  await copyFile(stored, target, CLONE);
}

/** Where cacache (npm's cache library) keeps the tarball of sha512 `hex` in an npm cache folder. */
export function contentPath(npmCache: string, hex: string): string {
  return path.join(npmCache, '_cacache', 'content-v2', 'sha512', hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
}

function storePath(store: string, hex: string): string {
  return path.join(store, hex.slice(0, 2), hex);
}

/**
 * The tarballs the lock pinned that were missing and the step fetched: each taken in only if no
 * folder on its way is a symlink and its bytes match, within a byte budget per step. Nothing else
 * the step wrote (another digest, an index entry, `_npx`) is ever looked at.
 */
async function promote(dir: string, store: string, missing: ReadonlySet<string>): Promise<void> {
  let budget = MAX_PROMOTED_BYTES;
  for (const hex of missing) {
    const source = contentPath(dir, hex);
    if (!(await realFolders(dir, source))) continue;
    const size = (await lstat(source).catch(() => null))?.size ?? 0;
    if (size > budget) return;
    if (await importVerified(source, store, hex)) budget -= size;
  }
}

/** Whether every folder from `dir` down to `file` is a folder, not a symlink to one elsewhere. */
async function realFolders(dir: string, file: string): Promise<boolean> {
  for (let folder = path.dirname(file); folder !== dir && folder.startsWith(`${dir}/`); folder = path.dirname(folder)) {
    if (!(await lstat(folder).catch(() => null))?.isDirectory()) return false;
  }
  return true;
}

/**
 * Copies `source` into the store under `hex` if its bytes hash to it: hashed through the opened
 * file first (a mismatch costs no copy), then copied and the copy hashed again, so what is checked
 * is what stays. A symlink, anything but a regular file, or a sparse file (a step could make one of
 * a gigabyte for free) is skipped. Answers whether the store now holds it.
 */
async function importVerified(source: string, store: string, hex: string): Promise<boolean> {
  const target = storePath(store, hex);
  const temp = path.join(path.dirname(target), `.import-${randomBytes(8).toString('hex')}`);
  try {
    const input = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const info = await input.stat();
      if (!info.isFile() || info.size > MAX_TARBALL_BYTES || info.blocks * 512 < info.size / 2) return false;
      if ((await sha512Of(input.createReadStream({ autoClose: false, start: 0 }))) !== hex) return false;
      await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await pipeline(input.createReadStream({ autoClose: false, start: 0 }), (await open(temp, 'wx', 0o600)).createWriteStream());
    } finally {
      await input.close();
    }
    if ((await sha512Of(createReadStream(temp))) !== hex) return false;
    await rename(temp, target);
    return true;
  } catch {
    return false;
  } finally {
    await rm(temp, { force: true });
  }
}

async function sha512Of(stream: NodeJS.ReadableStream): Promise<string> {
  const hash = createHash('sha512');
  await pipeline(stream, hash);
  return hash.digest('hex');
}

async function isRegularFile(file: string): Promise<boolean> {
  return (await lstat(file).catch(() => null))?.isFile() ?? false;
}
