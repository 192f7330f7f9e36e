import { compareBranches, type Comparison } from '../../shared/fork/compare';
import { verifyFork } from '../evidence/verify-fork';
import type { OrchestratorContext } from '../host/context';

/**
 * `citadel fork compare`: fresh re-verification from disk, then the pure comparison engine. An
 * untrusted signer is said first, in words: it is why no branch is comparable. `state` is
 * fork.json's, which is not signed: labelled `record_facts: "unverified"` as replay labels it.
 */
export async function compareFork(ctx: OrchestratorContext, forkId: string): Promise<Comparison & { fork_id: string; state: string; record_facts: 'unverified' }> {
  const verified = await verifyFork(ctx, forkId);
  const comparison = compareBranches(verified.branches);
  const trust = verified.trust !== null && !verified.trust.trusted ? [`signer_untrusted: ${verified.trust.message}`] : [];
  return { fork_id: forkId, state: verified.record.state, record_facts: 'unverified', ...comparison, reasons: [...trust, ...comparison.reasons] };
}
