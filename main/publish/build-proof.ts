import { digestOf } from '../../shared/digest';
import { compareBranches } from '../../shared/fork/compare';
import type { ProofReport } from '../../shared/publish/replay';
import { verifyFork } from '../evidence/verify-fork';
import type { OrchestratorContext } from '../host/context';
import { buildReplay } from './build-replay';

/**
 * The bounded proof report: exact counts from evidence reloaded and verified now (never a stored
 * flag), the comparison outcome, and the embedded replay bound by its digest. Missing evidence
 * stays in the denominator and never becomes a verified receipt or a model pass.
 */
export async function buildProof(ctx: OrchestratorContext, forkId: string): Promise<ProofReport> {
  const verified = await verifyFork(ctx, forkId);
  const replay = await buildReplay(ctx, forkId, verified);
  const comparison = compareBranches(verified.branches);
  const count = (status: 'passed' | 'failed' | 'unknown'): number => verified.branches.filter((b) => b.model_proof.status === status).length;
  return {
    schema_version: 1,
    kind: 'citadel_proof_report',
    fork_id: forkId,
    counts: {
      branches: verified.branches.length,
      comparable: comparison.branches.filter((b) => b.comparable).length,
      verified_receipts: verified.branches.filter((b) => b.receipt_verified).length,
      model_proof: { passed: count('passed'), failed: count('failed'), unknown: count('unknown') },
    },
    comparison: { outcome: comparison.outcome, recommended_branch_id: comparison.recommended_branch_id },
    required_evidence: comparison.branches.map((b) => ({ branch_id: b.branch_id, ...b.required_evidence })),
    replay_digest: digestOf(replay),
    replay,
    // Counts come from verified evidence; the embedded replay's record facts do not.
    record_facts: 'unverified',
  };
}
