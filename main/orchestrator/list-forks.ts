import { isCitadelError } from '../../shared/errors';
import { forkStatusOf } from '../../shared/fork/fork-status';
import type { ForkListEntry } from '../../shared/ipc/contract';
import type { OrchestratorContext } from '../host/context';
import { withContractStanding } from './contract-standing';

/**
 * Every fork under the root, as `fork status` would show it (a fork whose contract no longer
 * verifies is blocked, never ready). An unreadable record is listed as unknown with its reason, never hidden.
 */
export async function listForks(ctx: OrchestratorContext): Promise<ForkListEntry[]> {
  const ids = await ctx.store.listForkIds();
  return Promise.all(
    ids.map(async (id): Promise<ForkListEntry> => {
      try {
        return forkStatusOf(await withContractStanding(ctx, await ctx.store.readRecord(id)));
      } catch (error) {
        if (!isCitadelError(error)) throw error;
        return { fork_id: id, state: 'unknown', problem: error.code };
      }
    }),
  );
}
