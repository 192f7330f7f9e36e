import { isCitadelError } from '../../shared/errors';
import type { ForkStatus } from '../../shared/fork/fork-record';
import { forkStatusOf } from '../../shared/fork/fork-status';
import type { OrchestratorContext } from './context';

export type ForkListEntry = ForkStatus | { fork_id: string; state: 'unknown'; problem: string };

/** Every fork under the root. An unreadable record is listed as unknown with its reason, never hidden. */
export async function listForks(ctx: OrchestratorContext): Promise<ForkListEntry[]> {
  const ids = await ctx.store.listForkIds();
  return Promise.all(
    ids.map(async (id): Promise<ForkListEntry> => {
      try {
        return forkStatusOf(await ctx.store.readRecord(id));
      } catch (error) {
        if (!isCitadelError(error)) throw error;
        return { fork_id: id, state: 'unknown', problem: error.code };
      }
    }),
  );
}
