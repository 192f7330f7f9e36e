import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
// proper-lockfile: the mkdir lock Claude Code itself takes around its refresh, so one lock path excludes both.
import lockfile from 'proper-lockfile';
import { writeFileDurably } from '../../store/atomic-file';
import type { RefreshFailure } from './credential-errors';
import type { KeychainSource } from './keychain';

/** Where a CLI's login document is kept (a file or a Keychain item), read and replaced whole. */
export interface LoginStore {
  /** The document's text; null when there is none. */
  read(): Promise<string | null>;
  /** Replaces the document; called only inside `withLock`. */
  write(text: string): Promise<void>;
  /** Runs `fn` holding the cross-process lock every refresher of this login takes. */
  withLock<T>(fn: () => Promise<T>): Promise<T>;
}

export class LoginStoreError extends Error {
  constructor(
    readonly reason: RefreshFailure,
    message: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'LoginStoreError';
  }
}

/** One lock directory; `resolveSymlinks` locks the real path of the one named (`<realpath(dir)>.lock`, as Claude Code names its older lock). */
export interface LockSpec {
  readonly lockPath: string;
  readonly resolveSymlinks?: boolean;
}

async function lockPathOf(spec: LockSpec): Promise<string> {
  if (spec.resolveSymlinks !== true) return spec.lockPath;
  const dir = spec.lockPath.replace(/\.lock$/, '');
  return `${await realpath(dir).catch(() => dir)}.lock`;
}

// As Claude Code 2.1.328 takes its refresh lock (read from its bundle): stale after 60 s, touched every 5 s.
const STALE_MS = 60_000;
const UPDATE_MS = 5_000;
// A refresh holds the lock for at most the token request's 30 s timeout; wait a little longer.
const RETRIES = { retries: 70, factor: 1, minTimeout: 500, maxTimeout: 500 };

/** Takes `locks` in order (always the same order, so two refreshers cannot deadlock), releases them in reverse. */
export async function withLocks<T>(locks: readonly LockSpec[], fn: () => Promise<T>): Promise<T> {
  const compromised: { error: Error | null } = { error: null };
  const releases: (() => Promise<void>)[] = [];
  try {
    for (const spec of locks) {
      const lockPath = await lockPathOf(spec);
      // The library retries every failure, a missing directory too: that one is known at once.
      await stat(path.dirname(lockPath));
      // The library keeps its held locks by the path given, so each lock is given as its own path.
      releases.push(
        await lockfile.lock(lockPath, {
          lockfilePath: lockPath,
          realpath: false,
          stale: STALE_MS,
          update: UPDATE_MS,
          retries: RETRIES,
          // The library's default throws from a timer and would take down the supervisor; the write checks instead.
          onCompromised: (error) => {
            compromised.error = error;
          },
        }),
      );
    }
  } catch (error) {
    await releaseAll(releases);
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new LoginStoreError('lock_busy', 'another process held the login lock too long', { cause: error });
    throw new LoginStoreError('unreadable', 'the login lock could not be taken (its directory is gone or not writable)', { cause: error });
  }
  try {
    const result = await fn();
    if (compromised.error !== null) throw new LoginStoreError('lock_busy', 'the login lock was lost during the refresh', { cause: compromised.error });
    return result;
  } finally {
    await releaseAll(releases);
  }
}

async function releaseAll(releases: (() => Promise<void>)[]): Promise<void> {
  for (const release of releases.reverse()) await release().catch(() => undefined);
}

/**
 * A login file. The write goes to the file a symlink names (the operator's link stays), atomically
 * (temp file, fsync, rename: the operator's CLI reads the old or the new document, never a torn one)
 * and with the file's own mode.
 */
export function fileLoginStore(file: string, locks: readonly LockSpec[]): LoginStore {
  return {
    read: async () => {
      try {
        return await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw new LoginStoreError('unreadable', 'the login file could not be read', { cause: error });
      }
    },
    write: async (text) => {
      try {
        const target = await realpath(file);
        const mode = (await stat(target)).mode & 0o777;
        await writeFileDurably(target, text, { mode });
      } catch (error) {
        throw new LoginStoreError('write_failed', 'the refreshed login could not be written back', { cause: error });
      }
    },
    withLock: (fn) => withLocks(locks, fn),
  };
}

/** A login kept in a Keychain item; written back through the same source. */
export function keychainLoginStore(keychain: KeychainSource, service: string, account: string, locks: readonly LockSpec[]): LoginStore {
  return {
    read: async () => {
      try {
        return await keychain.read(service, account);
      } catch (error) {
        throw new LoginStoreError('unreadable', 'the Keychain item could not be read', { cause: error });
      }
    },
    write: async (text) => {
      try {
        await keychain.write(service, account, text);
      } catch (error) {
        throw new LoginStoreError('write_failed', 'the refreshed login could not be written to the Keychain', { cause: error });
      }
    },
    withLock: (fn) => withLocks(locks, fn),
  };
}
