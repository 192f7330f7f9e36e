import type { ForkRecord } from '../../shared/fork/fork-record';
import { reconcileLanding } from '../landing/reconcile-landing';
import type { OrchestratorContext } from '../host/context';
import { driveFork } from './drive-fork';
import { ForkRequestSchema } from '../../shared/fork/fork-request';

/**
 * `citadel fork resume`: continue the recorded execution, then settle a landing left in doubt by a
 * crash (found merge → landed; none → blocked, never retried on its own).
 */
export async function resumeFork(ctx: OrchestratorContext, forkId: string): Promise<ForkRecord> {
  await driveFork(ctx, forkId, 'all');
  const { repo } = await ctx.store.readJson(forkId, 'request', ForkRequestSchema);
  await reconcileLanding(ctx, forkId, repo);
  return ctx.store.readRecord(forkId);
}
