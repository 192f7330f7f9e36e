import { isCitadelError } from '../../shared/errors';
import { forkStatusOf } from '../../shared/fork/fork-status';
import type { ForkListing, ForkProblem, ListedFork } from '../../shared/fork/fork-summary';
import type { Lineage } from '../../shared/fork/lineage';
import type { ForkRecord } from '../../shared/fork/fork-record';
import type { OrchestratorContext } from '../host/context';
import { verifiedContract, withContractStanding } from './contract-standing';
import { forkLabels } from './fork-labels';
import { childrenByParent, standingLineage } from './fork-family';

/**
 * Every fork under the root, as `fork status` would show it (a fork whose contract no longer
 * verifies is blocked, never ready), with its title and repository name, and since when a running
 * fork runs. An unreadable record is listed as unknown with its reason, never hidden.
 */
export async function listForks(ctx: OrchestratorContext): Promise<ForkListing[]> {
  const ids = await ctx.store.listForkIds();
  const lineages = new Map<string, Lineage | undefined>();
  const records = new Map<string, ForkRecord>();
  const listed = await Promise.all(
    ids.map(async (id): Promise<ListedFork | ForkProblem> => {
      try {
        const record = await ctx.store.readRecord(id);
        // The contract is read once for both: only a fork whose contract does not verify has its standing worked out again.
        const contract = await verifiedContract(ctx, record);
        lineages.set(id, contract?.lineage);
        records.set(id, record);
        const shown = contract === null ? await withContractStanding(ctx, record) : record;
        // The record's own history, already read: the list's elapsed time costs no other read.
        const runningSince = shown.state === 'running' ? (shown.history.findLast((h) => h.state === 'running')?.at ?? null) : null;
        return { ...forkStatusOf(shown, await forkLabels(ctx, id, contract), { lineage: contract?.lineage ?? null, children: [] }), running_since: runningSince };
      } catch (error) {
        if (!isCitadelError(error)) throw error;
        return { fork_id: id, state: 'unknown', problem: error.code };
      }
    }),
  );
  const children = childrenByParent(lineages, records);
  return listed.map((fork) => ('problem' in fork ? fork : { ...fork, lineage: standingLineage(lineages.get(fork.fork_id), records), children: children.get(fork.fork_id) ?? [] }));
}
