import { AsyncLocalStorage } from 'node:async_hooks';
import { statSync } from 'node:fs';
import { CitadelError } from '../../shared/errors';

/** A lock directory this process created and keeps fresh, as seen from the code running under it. */
export interface HeldLock {
  readonly lockPath: string;
  readonly staleMs: number;
  /** The directory's identity at creation: a holder that took over a stale lock made a new one. */
  readonly ino: number;
  readonly birthtimeMs: number;
  /** Filled by the library's onCompromised (its refresh found the lock gone or not ours). */
  readonly compromised: { error: Error | null };
  released: boolean;
}

export type LockLoss = 'released' | 'compromised' | 'removed' | 'taken_over' | 'stale';

const current = new AsyncLocalStorage<HeldLock>();

// The lock is refreshed every staleMs / 4; older than this and a waiting process may take it while
// our write is still under way (a stalled event loop delays the refresh, not the write after it).
const WRITE_MARGIN = 0.25;

/** Runs `fn` with `lock` as the lock every durable write in it must still hold. */
export function runHolding<T>(lock: HeldLock, fn: () => Promise<T>): Promise<T> {
  return current.run(lock, fn);
}

/**
 * Called before every journal append and durable write. Under a lock that is no longer held it
 * throws FORK_LOCKED and nothing is written; outside any lock it does nothing.
 */
export function assertLockStillHeld(): void {
  const lock = current.getStore();
  if (lock === undefined) return;
  const loss = lockLoss(lock);
  if (loss !== null) throw lockLost(loss, lock.compromised.error);
}

export function lockLost(loss: LockLoss, cause: Error | null): CitadelError {
  return new CitadelError('FORK_LOCKED', 'the fork lock was lost while this operation ran; nothing more was written; check the fork with citadel fork status', {
    details: { reason: loss },
    ...(cause === null ? {} : { cause }),
  });
}

/** Synchronous on purpose: nothing may run between this check and the write that follows it. */
export function lockLoss(lock: HeldLock): LockLoss | null {
  if (lock.released) return 'released';
  if (lock.compromised.error !== null) return 'compromised';
  let stat;
  try {
    stat = statSync(lock.lockPath);
  } catch {
    return 'removed';
  }
  // ext4 hands a removed directory's inode to the next mkdir at once: the birth time tells them apart.
  if (stat.ino !== lock.ino || stat.birthtimeMs !== lock.birthtimeMs) return 'taken_over';
  if (Date.now() - stat.mtimeMs > lock.staleMs * (1 - WRITE_MARGIN)) return 'stale';
  return null;
}
