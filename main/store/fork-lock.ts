// proper-lockfile: mkdir-based locks with staleness, so a SIGKILLed holder does not wedge a fork.
import lockfile from 'proper-lockfile';
import path from 'node:path';
import { CitadelError } from '../../shared/errors';

const STALE_MS = 4000;

/** Runs `fn` holding the fork's lock; two processes never mutate one fork at once (decisions D11). */
export async function withForkLock<T>(forkDir: string, fn: () => Promise<T>, options: { waitMs?: number } = {}): Promise<T> {
  const waitMs = options.waitMs ?? STALE_MS * 3;
  let release: () => Promise<void>;
  let compromised: Error | null = null;
  try {
    release = await lockfile.lock(forkDir, {
      lockfilePath: path.join(forkDir, 'fork.lock'),
      stale: STALE_MS,
      update: STALE_MS / 4,
      retries: { retries: Math.max(0, Math.ceil(waitMs / 250)), minTimeout: 250, maxTimeout: 250, factor: 1 },
      // The library's default throws from a timer and would take down a long-lived host (Mission
      // Control); a lost lock is reported to this holder instead, when its work returns.
      onCompromised: (error) => {
        compromised = error;
      },
    });
  } catch (error) {
    throw new CitadelError('FORK_LOCKED', 'another Citadel process is changing this fork; try again when it finishes', {
      details: { reason: (error as NodeJS.ErrnoException).code ?? 'unknown' },
      cause: error,
    });
  }
  try {
    const result = await fn();
    if (compromised !== null) {
      throw new CitadelError('FORK_LOCKED', 'the fork lock was lost while this operation ran; check the fork with citadel fork status', {
        cause: compromised,
      });
    }
    return result;
  } finally {
    await release().catch(() => undefined);
  }
}
