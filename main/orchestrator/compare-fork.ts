import { compareBranches, type Comparison } from '../../shared/fork/compare';
import { verifyFork } from '../evidence/verify-fork';
import type { OrchestratorContext } from '../host/context';

/** `citadel fork compare`: fresh re-verification from disk, then the pure comparison engine. */
export async function compareFork(ctx: OrchestratorContext, forkId: string): Promise<Comparison & { fork_id: string; state: string }> {
  const verified = await verifyFork(ctx, forkId);
  return { fork_id: forkId, state: verified.record.state, ...compareBranches(verified.branches) };
}
