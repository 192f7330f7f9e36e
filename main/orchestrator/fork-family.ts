import { ContractV1Schema } from '../../shared/fork/contract';
import type { Contract } from '../../shared/fork/contract';
import type { ChildFork, Lineage } from '../../shared/fork/lineage';
import type { ForkRecord } from '../../shared/fork/fork-record';
import type { ForkFamily } from '../../shared/fork/fork-status';
import type { OrchestratorContext } from '../host/context';
import { stat } from 'node:fs/promises';
import { readStoredJson, UNTRUSTED } from '../store/read-stored-json';
import { verifiedContract } from './contract-standing';

// Only the lineage is looked at first: the core schema 1 and 2 share, read loosely, then the few that name the parent are verified whole.
const LineageOnlySchema = ContractV1Schema.pick({ lineage: true });

/**
 * A fork's chain as its records alone give it (issue 32): its lineage from its own verified
 * contract when the parent it names is here and is named rightly (`names`), and every fork whose
 * verified contract names it so. A contract that does not verify names no parent and no child: an
 * edited file cannot graft a fork onto a chain, in either direction.
 */
export async function forkFamily(ctx: Pick<OrchestratorContext, 'store'>, record: ForkRecord, contract: Contract | null): Promise<ForkFamily> {
  const claimed = contract?.lineage;
  const parent = claimed === undefined ? null : await ctx.store.readRecord(claimed.parent_fork_id).catch(() => null);
  return { lineage: parent !== null && names(parent, claimed) ? claimed : null, children: await childrenOf(ctx, record) };
}

/** The lineage a listed fork shows: only one its listed parent's record bears out (the list has read every record). */
export function standingLineage(lineage: Lineage | undefined, records: ReadonlyMap<string, Pick<ForkRecord, 'fork_id' | 'contract_digest' | 'branches'>>): Lineage | null {
  const parent = lineage === undefined ? undefined : records.get(lineage.parent_fork_id);
  return parent !== undefined && names(parent, lineage) ? lineage : null;
}

/**
 * A child names its parent by the parent's contract digest and one of its branches: both must be this
 * fork's. A child contract rewritten with its record to match (neither is signed) cannot name a
 * branch or contract the parent does not have.
 */
function names(parent: Pick<ForkRecord, 'fork_id' | 'contract_digest' | 'branches'>, lineage: Lineage | undefined): lineage is Lineage {
  return (
    lineage !== undefined &&
    lineage.parent_fork_id === parent.fork_id &&
    lineage.parent_contract_digest === parent.contract_digest &&
    parent.branches.some((b) => b.branch_id === lineage.parent_branch_id)
  );
}

async function childrenOf(ctx: Pick<OrchestratorContext, 'store'>, parent: ForkRecord): Promise<ChildFork[]> {
  const forkId = parent.fork_id;
  const ids = (await ctx.store.listForkIds()).filter((id) => id !== forkId);
  const found = await Promise.all(
    ids.map(async (id): Promise<ChildFork | null> => {
      if ((await claimedParent(ctx.store.file(id, 'contract'))) !== forkId) return null;
      const record = await ctx.store.readRecord(id).catch(() => null);
      const lineage = record === null ? undefined : (await verifiedContract(ctx, record))?.lineage;
      return names(parent, lineage) ? { fork_id: id, parent_branch_id: lineage.parent_branch_id } : null;
    }),
  );
  // Fork ids are ULIDs: their order is their creation order.
  return found.filter((c): c is ChildFork => c !== null).sort((a, b) => (a.fork_id < b.fork_id ? -1 : 1));
}

/**
 * The parent fork a contract file names, read loosely (it is verified whole only when it names the
 * fork asked about). A contract is written once, so what a file said is kept, by its identity
 * (inode, size, change time): a long-lived process asked again and again reads only what changed.
 */
const claimedParents = new Map<string, { readonly identity: string; readonly parent: string | null }>();
const KEPT_CLAIMS = 100_000;

async function claimedParent(file: string): Promise<string | null> {
  const identity = await stat(file, { bigint: true }).then(
    (s) => `${s.ino}:${s.size}:${s.ctimeNs}:${s.mtimeNs}`,
    () => null,
  );
  if (identity === null) return null;
  const kept = claimedParents.get(file);
  if (kept?.identity === identity) return kept.parent;
  const named = await readStoredJson(file, LineageOnlySchema.loose(), UNTRUSTED);
  const parent = named.status === 'valid' ? (named.value.lineage?.parent_fork_id ?? null) : null;
  if (claimedParents.size >= KEPT_CLAIMS) claimedParents.clear();
  claimedParents.set(file, { identity, parent });
  return parent;
}

/** Children for every listed fork at once, from the lineages and records the list has already read: no file is read again. */
export function childrenByParent(lineages: ReadonlyMap<string, Contract['lineage']>, records: ReadonlyMap<string, Pick<ForkRecord, 'fork_id' | 'contract_digest' | 'branches'>>): Map<string, ChildFork[]> {
  const byParent = new Map<string, ChildFork[]>();
  for (const [id, claimed] of [...lineages].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const lineage = standingLineage(claimed, records);
    if (lineage === null) continue;
    byParent.set(lineage.parent_fork_id, [...(byParent.get(lineage.parent_fork_id) ?? []), { fork_id: id, parent_branch_id: lineage.parent_branch_id }]);
  }
  return byParent;
}
