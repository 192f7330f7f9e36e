import { isCitadelError } from '../../shared/errors';
import { forkStatusOf } from '../../shared/fork/fork-status';
import type { ForkListEntry } from '../../shared/ipc/contract';
import type { OrchestratorContext } from '../host/context';


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
