import { digestOf } from '../digest';
import type { ProofProjection, ProofReport } from './replay';

/** Mission Control's projection of a proof report: the report digest and a bounded summary only. */
export function proofProjection(report: ProofReport): ProofProjection {
  const verified = report.replay.branches.filter((b) => b.receipt_verified);
  return {
    fork_id: report.fork_id,
    report_digest: digestOf(report),
    branches: report.counts.branches,
    verified_receipts: report.counts.verified_receipts,
    comparable: report.counts.comparable,
    model_proof: report.counts.model_proof,
    outcome: report.comparison.outcome,
    recommended_branch_id: report.comparison.recommended_branch_id,
    containment: {
      contained: verified.filter((b) => b.containment?.mode === 'contained').length,
      runtime_only: verified.filter((b) => b.containment?.mode !== 'contained').length,
    },
  };
}
