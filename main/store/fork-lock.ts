// proper-lockfile: mkdir-based locks with staleness, so a SIGKILLed holder does not wedge a fork.
import lockfile from 'proper-lockfile';
import { statSync } from 'node:fs';
import { rm, stat as statPath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CitadelError } from '../../shared/errors';
import { forkFile } from './fork-layout';
import { lockLoss, lockLost, runHolding, type HeldLock } from './held-lock';
import { CHECKPOINT, readStoredJson } from './read-stored-json';

// A holder whose event loop stalls longer than this loses the lock to a waiting process, and every
// write under the lock checks ownership first (held-lock.ts), so a stall costs an operation, never
// a torn record. It is also how long a SIGKILLed holder blocks the next command (`fork resume`
// after a crash), so it is kept short; refreshing every quarter leaves a stall of about 6 s before
// writes are refused.
const STALE_MS = 12_000;
const UPDATE_MS = STALE_MS / 4;
// Long enough for a crashed holder's lock to turn stale and be taken over.
const DEFAULT_WAIT_MS = STALE_MS + 5_000;

/** Runs `fn` holding the fork's lock; two processes never mutate one fork at once (decisions D11). */
export function withForkLock<T>(forkDir: string, fn: () => Promise<T>, options: { waitMs?: number } = {}): Promise<T> {
  return withDirLock(forkFile(forkDir, 'lock'), 'another Citadel process is changing this fork; try again when it finishes', fn, { ...options, holderFile: forkFile(forkDir, 'lockHolder') });
}

/**
 * Who holds a lock directory, written beside it by its holder and removed before it releases it:
 * the lock directory's identity ties the file to the one lock it was written for.
 */
const LockHolderFileSchema = z.strictObject({ pid: z.number().int().positive(), ino: z.number(), birthtime_ms: z.number(), since: z.iso.datetime() });

export interface LockHolder {
  /** The holder's process id; null when it wrote none readable for this lock (it has only just taken it). */
  readonly pid: number | null;
  /** When the holder took the lock, as it recorded it, or as the lock directory's birth time says. */
  readonly since: string;
}

/** Who holds the fork's lock now; null when no process holds it (none, or a stale one whose holder died). */
export async function forkLockHolder(forkDir: string): Promise<LockHolder | null> {
  const lock = await statPath(forkFile(forkDir, 'lock')).catch(() => null);
  if (lock === null || Date.now() - lock.mtimeMs > STALE_MS) return null;
  const holder = await readStoredJson(forkFile(forkDir, 'lockHolder'), LockHolderFileSchema, CHECKPOINT).catch(() => null);
  if (holder !== null && holder.ino === lock.ino && holder.birthtime_ms === lock.birthtimeMs) return { pid: holder.pid, since: holder.since };
  return { pid: null, since: new Date(lock.birthtimeMs || lock.ctimeMs).toISOString() };
}

/**
 * Runs `fn` holding the lock directory `lockPath`. Every journal append and durable write inside
 * `fn` first checks that the lock is still this holder's, so a holder that lost it writes nothing
 * more (FORK_LOCKED).
 */
export async function withDirLock<T>(lockPath: string, busy: string, fn: () => Promise<T>, options: { waitMs?: number; holderFile?: string } = {}): Promise<T> {
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const dir = path.dirname(lockPath);
  const compromised: HeldLock['compromised'] = { error: null };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dir, {
      lockfilePath: lockPath,
      stale: STALE_MS,
      update: UPDATE_MS,
      retries: { retries: Math.max(0, Math.ceil(waitMs / 250)), minTimeout: 250, maxTimeout: 250, factor: 1 },
      // The library's default throws from a timer and would take down a long-lived host (Mission
      // Control); the holder's next write, or its return, reports the loss instead.
      onCompromised: (error) => {
        compromised.error = error;
      },
    });
  } catch (error) {
    throw new CitadelError('FORK_LOCKED', busy, { details: { reason: (error as NodeJS.ErrnoException).code ?? 'unknown' }, cause: error });
  }
  const stat = statSync(lockPath);
  const held: HeldLock = { lockPath, staleMs: STALE_MS, ino: stat.ino, birthtimeMs: stat.birthtimeMs, compromised, released: false };
  const { holderFile } = options;
  try {
    // Not durable: who holds a lock is for an operator to read now; a lost or torn file says "unknown".
    if (holderFile !== undefined) {
      const holder = { pid: process.pid, ino: stat.ino, birthtime_ms: stat.birthtimeMs, since: new Date().toISOString() };
      await writeFile(holderFile, `${JSON.stringify(holder)}\n`, { mode: 0o600 }).catch(() => undefined);
    }
    const result = await runHolding(held, fn);
    // Lost at any point: its writes were checked, but what it did between them may have raced
    // another holder. A lock merely due for refresh is not lost.
    const loss = lockLoss(held);
    if (loss !== null && loss !== 'stale') throw lockLost(loss, compromised.error);
    return result;
  } finally {
    // Releasing removes the lock directory by path: after a takeover that directory is the new
    // holder's, so a holder that lost its lock leaves it alone.
    const loss = lockLoss(held);
    held.released = true;
    if (loss !== 'taken_over' && loss !== 'removed') {
      if (holderFile !== undefined) await rm(holderFile, { force: true }).catch(() => undefined);
      await release().catch(() => undefined);
    }
  }
}
