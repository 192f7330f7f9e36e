import { MAX_SHOWN_REFUSALS, type EgressRefusal } from '../../shared/fork/egress-refusals';
import type { BranchRecord } from '../../shared/fork/fork-record';
import type { OrchestratorContext } from '../host/context';
import { readEgressDenials } from '../runtimes/supervisor/egress-denials';
import { attemptFiles } from '../store/fork-layout';

/**
 * The refusals of each branch's current attempt that refused anything, by branch id: what the
 * egress bridge or the provider gateway would not let through (a host, a model, a server tool, the
 * token budget).
 */
export async function egressRefusals(ctx: OrchestratorContext, forkId: string): Promise<Record<string, EgressRefusal[]>> {
  const record = await ctx.store.readRecord(forkId);
  const shown: Record<string, EgressRefusal[]> = {};
  for (const branch of record.branches) {
    const refusals = await branchRefusals(ctx, forkId, branch);
    if (refusals.length > 0) shown[branch.branch_id] = refusals;
  }
  return shown;
}

/** One branch attempt's refusals, alike ones counted once, in the order first recorded. */
export async function branchRefusals(ctx: OrchestratorContext, forkId: string, branch: Pick<BranchRecord, 'branch_id' | 'attempt'>): Promise<EgressRefusal[]> {
  // Display, never evidence: a record that cannot be read (a link, a FIFO, too large) shows nothing rather than failing the status.
  const denials = await readEgressDenials(attemptFiles(ctx.root, forkId, branch.branch_id, branch.attempt).egressDenials).catch(() => []);
  const grouped = new Map<string, EgressRefusal>();
  for (const d of denials) {
    const refusal = { reason: d.reason, host: d.host, port: d.port, method: d.method ?? null, path: d.path ?? null };
    const key = JSON.stringify(refusal);
    const seen = grouped.get(key);
    if (seen) seen.count += 1;
    else grouped.set(key, { ...refusal, count: 1 });
  }
  return [...grouped.values()].slice(0, MAX_SHOWN_REFUSALS);
}
