import type { OrchestratorContext } from '../host/context';
import { withForkLock } from '../store/fork-lock';
import type { Journal } from '../store/journal';

/**
 * Runs `fn` holding the fork lock, with the fork's journal (opened only under the lock: opening
 * cuts a torn tail, which must never race another process's append). An unknown fork is
 * FORK_NOT_FOUND, not a lock failure.
 */
export async function withLockedFork<T>(ctx: OrchestratorContext, forkId: string, fn: (journal: Journal) => Promise<T>): Promise<T> {
  await ctx.store.readRecord(forkId);
  return withForkLock(ctx.store.forkDir(forkId), async () => fn(await ctx.store.openJournal(forkId)));
}
