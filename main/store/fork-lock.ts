// proper-lockfile: mkdir-based locks with staleness, so a SIGKILLed holder does not wedge a fork.
import lockfile from 'proper-lockfile';
import { statSync } from 'node:fs';
import path from 'node:path';
import { CitadelError } from '../../shared/errors';
import { forkFile } from './fork-layout';
import { lockLoss, lockLost, runHolding, type HeldLock } from './held-lock';

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
  return withDirLock(forkFile(forkDir, 'lock'), 'another Citadel process is changing this fork; try again when it finishes', fn, options);
}

/**
 * Runs `fn` holding the lock directory `lockPath`. Every journal append and durable write inside
 * `fn` first checks that the lock is still this holder's, so a holder that lost it writes nothing
 * more (FORK_LOCKED).
 */
export async function withDirLock<T>(lockPath: string, busy: string, fn: () => Promise<T>, options: { waitMs?: number } = {}): Promise<T> {
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
  try {
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
    if (loss !== 'taken_over' && loss !== 'removed') await release().catch(() => undefined);
  }
}
