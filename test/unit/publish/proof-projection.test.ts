import { describe, expect, it } from 'vitest';
import { digestOf } from '../../../shared/digest';
import { proofProjection } from '../../../shared/publish/proof';
import { ProofProjectionSchema, type ProofReport } from '../../../shared/publish/replay';

const report: ProofReport = {
  schema_version: 1,
  kind: 'citadel_proof_report',
  fork_id: 'fork-01m8mmq75xgtczjnymq4fqfmtb',
  counts: { branches: 3, comparable: 2, verified_receipts: 2, model_proof: { passed: 1, failed: 1, unknown: 1 } },
  comparison: { outcome: 'recommend', recommended_branch_id: 'branch-claude' },
  replay_digest: `sha256:${'a'.repeat(64)}`,
  replay: {
    schema_version: 1,
    kind: 'citadel_replay',
    fork: { fork_id: 'fork-01m8mmq75xgtczjnymq4fqfmtb', schema_version: 1, demo: false, state: 'ready', created_at: '2026-11-29T00:00:00.000Z', history: [] },
    contract: {
      contract_digest: `sha256:${'b'.repeat(64)}`,
      objective_digest: `sha256:${'c'.repeat(64)}`,
      scope_digest: `sha256:${'d'.repeat(64)}`,
      policy_digest: `sha256:${'e'.repeat(64)}`,
      budget_digest: `sha256:${'f'.repeat(64)}`,
      workflow_digest: `sha256:${'0'.repeat(64)}`,
      verifier_digest: `sha256:${'1'.repeat(64)}`,
      executor_set_digest: null,
      signer_public_key_digest: null,
    },
    branches: [],
    comparison: { outcome: 'recommend', recommended_branch_id: 'branch-claude' },
    selection: { selected: false, branch_id: null, selected_at: null },
    landing: { landed: false, landed_at: null },
  },
};

describe('proofProjection (what Mission Control shows of a proof report)', () => {
  it('carries the report digest and the bounded summary, never the embedded replay', () => {
    const projection = proofProjection(report);
    expect(ProofProjectionSchema.parse(projection)).toEqual({
      fork_id: report.fork_id,
      report_digest: digestOf(report),
      branches: 3,
      verified_receipts: 2,
      comparable: 2,
      model_proof: { passed: 1, failed: 1, unknown: 1 },
      outcome: 'recommend',
      recommended_branch_id: 'branch-claude',
      containment: { contained: 0, runtime_only: 0 },
    });
    expect(JSON.stringify(projection)).not.toContain('citadel_replay');
  });

  it('counts verified branches that ran contained and those that ran runtime-only (chosen or predating containment)', () => {
    const branch = (id: string, verified: boolean, containment?: ProofReport['replay']['branches'][number]['containment']) => ({
      branch_id: id,
      profile_id: id,
      runtime: 'claude',
      provider: null,
      requested_model: 'claude-sonnet-4-5',
      observed_model: null,
      model_proof: 'unknown' as const,
      executor_profile_digest: null,
      state: 'passed',
      failure_code: null,
      attempt: 1,
      history: [],
      receipt_verified: verified,
      verification_reasons: [],
      execution_receipt_digest: null,
      fork_receipt_digest: null,
      verifier: { status: 'passed', steps: [] },
      ...(containment ? { containment } : {}),
    });
    const contained = { mode: 'contained', backend: 'bubblewrap', backend_version: 'bubblewrap 0.8.0', policy_digest: `sha256:${'2'.repeat(64)}` } as const;
    const withBranches: ProofReport = {
      ...report,
      replay: {
        ...report.replay,
        branches: [branch('branch-a', true, contained), branch('branch-b', true, { mode: 'runtime-only' }), branch('branch-c', true), branch('branch-d', false)],
      },
    };
    expect(proofProjection(withBranches).containment).toEqual({ contained: 1, runtime_only: 2 });
  });

  it('changes its digest when any reported fact changes', () => {
    const changed = { ...report, counts: { ...report.counts, verified_receipts: 1 } };
    expect(proofProjection(changed).report_digest).not.toBe(proofProjection(report).report_digest);
  });
});
