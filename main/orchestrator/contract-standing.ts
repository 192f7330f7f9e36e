import { digestOf } from '../../shared/digest';
import { ContractV1Schema, ContractV2Schema, type Contract } from '../../shared/fork/contract';
import type { BranchRecord, ForkRecord } from '../../shared/fork/fork-record';
import { executionState, isComparableBranch } from '../../shared/fork/fork-state';
import type { OrchestratorContext } from '../host/context';
import { readStoredJson, UNTRUSTED } from '../store/read-stored-json';
import type { BranchChange } from '../store/record-transitions';

/**
 * Whether a fork's stored contract still verifies (issue 12, clean refusals). Anything that
 * overwrites `contract.json` after creation (a runtime-only branch, any other process of the
 * operator) leaves no evidence of the fork able to verify: such a fork is `blocked` with that
 * reason, never `ready`.
 */

/** The stored contract when it still matches the digest the record (and every receipt) binds; else null. */
export async function verifiedContract(ctx: Pick<OrchestratorContext, 'store'>, record: ForkRecord): Promise<Contract | null> {
  const schema = record.schema_version === 1 ? ContractV1Schema : ContractV2Schema;
  const stored = await readStoredJson(ctx.store.file(record.fork_id, 'contract'), schema, UNTRUSTED);
  return stored.status === 'valid' && digestOf(stored.value) === record.contract_digest ? stored.value : null;
}

/** States an operator action set (select, land): those actions check the contract themselves, and it is never re-decided here. */
export const settledByOperator = (record: ForkRecord): boolean => record.state === 'selected' || record.state === 'landed';

/**
 * The branches an unverifiable contract blocks: each whose evidence would count (comparable: passed,
 * or failed by its verifier), so the fork is never `ready`, and with `unsettled` each still to run
 * or collect. A branch that failed otherwise (or was marked failed by an operator) has nothing to
 * count and stays as it is, so `resolve --mark-failed` and then `clean` end such a fork.
 */
export function unverifiableContractChanges(
  branches: readonly Pick<BranchRecord, 'branch_id' | 'state' | 'failure_code'>[],
  options: { readonly unsettled: boolean },
): Record<string, BranchChange> {
  const changes: Record<string, BranchChange> = {};
  for (const branch of branches) {
    const unsettled = branch.state === 'pending' || branch.state === 'running';
    if (unsettled ? options.unsettled : isComparableBranch(branch)) {
      changes[branch.branch_id] = { state: 'blocked', blocked_reason: 'contract_unverifiable', blocked_code: 'CONTRACT_UNVERIFIABLE' };
    }
  }
  return changes;
}

/**
 * The record as `fork status` shows it: when the contract no longer verifies, each branch whose
 * evidence would count reads as blocked for it (and the fork's state follows), as the next drive
 * records it. Branches still pending or running are shown as they are: that drive blocks them.
 */
export async function withContractStanding(ctx: Pick<OrchestratorContext, 'store'>, record: ForkRecord): Promise<ForkRecord> {
  if (settledByOperator(record) || (await verifiedContract(ctx, record)) !== null) return record;
  const changes = unverifiableContractChanges(record.branches, { unsettled: false });
  const branches = record.branches.map((branch): BranchRecord =>
    changes[branch.branch_id] ? { ...branch, state: 'blocked', blocked_reason: 'contract_unverifiable', blocked_code: 'CONTRACT_UNVERIFIABLE' } : branch,
  );
  return { ...record, state: executionState(branches), branches };
}
