import { readBoundedText } from '../store/read-bounded-text';

/** A lock larger than this is not read for seeding: setup then fetches what it needs itself. */
const MAX_LOCKFILE_BYTES = 64 * 1024 * 1024;
/** More packages than any real lock holds; past it the rest is not seeded. */
const MAX_INTEGRITIES = 50_000;
const SHA512_BYTES = 64;
/** npm's rules for a package name, scoped or not (lowercase URL-safe characters). */
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9._~-][a-z0-9._~-]*$/;
/** A registry version (semver, build metadata included); a link or git dependency has none. */
const VERSION = /^[0-9]+\.[0-9]+\.[0-9]+(?:[-+][0-9A-Za-z.+-]*)?$/;
/** v1 locks nest a package's own dependencies; a crafted lock nested deeper is not followed. */
const MAX_DEPTH = 64;

/** The lockfiles `npm ci` installs from, in npm's order of preference. */
const LOCKFILES = ['npm-shrinkwrap.json', 'package-lock.json'] as const;

/** A locked package as the registry knows it, with the sha512 (hex) of its tarball. */
export interface LockedPackage {
  readonly name: string;
  readonly version: string;
  readonly sha512: string;
}

/** What a project's npm lock pins: tarball digests (sha512, hex) and the registry packages they are. */
export interface LockedPackages {
  readonly sha512s: readonly string[];
  readonly packages: readonly LockedPackage[];
}

const NONE: LockedPackages = { sha512s: [], packages: [] };

/**
 * The project's npm lock, read from the branch worktree (repository content: untrusted, so bounded
 * and never more than strings taken out of it). Only sha512 digests: a sha1 pin is weaker than the
 * store's own check needs, so such packages are fetched, not seeded.
 */
export async function lockedPackages(worktree: string): Promise<LockedPackages> {
  for (const name of LOCKFILES) {
    const read = await readBoundedText(`${worktree}/${name}`, MAX_LOCKFILE_BYTES, 'refuse');
    if (!read.ok) continue;
    try {
      return packagesOf(JSON.parse(read.text));
    } catch {
      return NONE;
    }
  }
  return NONE;
}

/** Lockfile v2/v3 `packages` (keyed by install path) and v1's nested `dependencies` (keyed by name). */
function packagesOf(lock: unknown): LockedPackages {
  const sha512s = new Set<string>();
  const packages = new Map<string, LockedPackage>();
  const add = (name: string, entry: Record<string, unknown>) => {
    const sha512 = typeof entry['integrity'] === 'string' ? sha512sOf(entry['integrity'])[0] : undefined;
    // Only a pinned package counts, and only so many: a crafted lock cannot make seeding slow.
    if (sha512 === undefined || sha512s.size >= MAX_INTEGRITIES) return;
    sha512s.add(sha512);
    // An alias (`"a": "npm:b@1"`) is fetched under the name it stands for.
    const real = typeof entry['name'] === 'string' ? entry['name'] : name;
    const version = entry['version'];
    if (isPackageName(real) && typeof version === 'string' && VERSION.test(version)) packages.set(`${real}@${version}`, { name: real, version, sha512 });
  };
  const visitV1 = (entries: unknown, depth: number): void => {
    if (!isRecord(entries) || depth > MAX_DEPTH) return;
    for (const [name, entry] of Object.entries(entries)) {
      if (!isRecord(entry)) continue;
      add(name, entry);
      visitV1(entry['dependencies'], depth + 1);
    }
  };
  if (!isRecord(lock)) return NONE;
  if (isRecord(lock['packages'])) {
    for (const [key, entry] of Object.entries(lock['packages'])) {
      const at = key.lastIndexOf('node_modules/');
      if (isRecord(entry) && at !== -1) add(key.slice(at + 'node_modules/'.length), entry);
    }
  } else {
    visitV1(lock['dependencies'], 0);
  }
  return { sha512s: [...sha512s], packages: [...packages.values()] };
}

/** npm's rules for a name, and never `.` or `..`: the name becomes a path of a registry URL. */
function isPackageName(name: string): boolean {
  return PACKAGE_NAME.test(name) && !name.split('/').some((part) => part === '.' || part === '..');
}

/** The sha512 hashes of an SRI string ("sha512-<base64> sha1-<base64>"), as hex. */
export function sha512sOf(integrity: string): string[] {
  return integrity
    .split(/\s+/)
    .filter((token) => token.startsWith('sha512-'))
    .map((token) => Buffer.from(token.slice('sha512-'.length).split('?')[0] ?? '', 'base64'))
    .filter((bytes) => bytes.length === SHA512_BYTES)
    .map((bytes) => bytes.toString('hex'));
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
