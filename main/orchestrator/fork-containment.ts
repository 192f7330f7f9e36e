import { digestOf } from '../../shared/digest';
import { publicContainment, type ForkContainment } from '../../shared/fork/containment-display';
import { ContractV1Schema, ContractV2Schema } from '../../shared/fork/contract';
import type { OrchestratorContext } from '../host/context';
import { readStoredJson, UNTRUSTED } from '../store/read-stored-json';

/**
 * The containment a fork's contract binds, as `fork status` and the Fork view show it: the backend
 * and policy digests (never the templates), `predates` or `unverified` (ForkContainmentSchema).
 */
export async function forkContainment(ctx: Pick<OrchestratorContext, 'store'>, forkId: string): Promise<ForkContainment> {
  const record = await ctx.store.readRecord(forkId);
  const schema = record.schema_version === 1 ? ContractV1Schema : ContractV2Schema;
  const contract = await readStoredJson(ctx.store.file(forkId, 'contract'), schema, UNTRUSTED);
  if (contract.status !== 'valid' || digestOf(contract.value) !== record.contract_digest) return 'unverified';
  return contract.value.containment ? publicContainment(contract.value.containment) : 'predates';
}
