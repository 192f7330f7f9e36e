/**
 * Issue 31: a contained fork of one GitHub Copilot CLI profile and one Claude Code profile, both
 * simulated (main/demo/simulated-runtime prints each CLI's recorded output shapes), reaches `ready`
 * with a recommendation. Copilot's receipt carries its own model proof: its events name only the
 * requested model, and the simulated runtimes call no provider, so the wire saw none either and the
 * proof is honestly `unknown`; its tokens are the ones its session state recorded.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ComparedBranch } from '../../../shared/fork/compare';
import type { ExecutionReceipt } from '../../../shared/fork/receipts';
import { FIXED_SUM, ForkHarness, HARNESS_API_KEY, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const ENV = { CITADEL_KEYSTORE: 'file', COPILOT_PROVIDER_API_KEY: HARNESS_API_KEY };

describe('a fork with a simulated copilot profile', () => {
  it('reaches ready with a recommendation, and the copilot receipt carries its model proof and session tokens', { timeout: 180_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-copilot-fork-'));
    await h.simulate({ copilot: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, claude: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const executors = path.join(h.base, 'executors.json');
    writeFileSync(
      executors,
      JSON.stringify({
        schema_version: 2,
        executors: [
          { profile_id: 'copilot-mini', runtime: 'copilot', model: 'gpt-4.1-mini', local_provider: null, adapter_options: {} },
          { profile_id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: {} },
        ],
      }),
    );
    const { run, doc } = await h.startJson(['--executors', executors, '--workflow', h.workflowFile], ENV);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.state, JSON.stringify(doc)).toBe('ready');
    expect(doc.branches.map((b) => [b.branch_id, b.runtime, b.state, b.failure_code])).toEqual([
      ['branch-claude-sonnet', 'claude', 'failed', 'VERIFIER_FAILED'],
      ['branch-copilot-mini', 'copilot', 'passed', null],
    ]);

    const { receipt } = h.readJson<{ receipt: ExecutionReceipt }>(h.attemptFile(doc.fork_id, 'branch-copilot-mini', 'execution-receipt.json'));
    // Two model requests (the edit, then the final message), as the session state recorded them; no model is claimed.
    expect(receipt.telemetry).toEqual({ observed_model: null, observed_model_source: null, input_tokens: 642, output_tokens: 108, cost_usd: null });
    expect(receipt.wire).toMatchObject({ requests: 0, served_models: [] });

    const compared = JSON.parse((await h.cli(['fork', 'compare', doc.fork_id, '--json'], ENV)).stdout) as { outcome: string; recommended_branch_id: string | null; branches: ComparedBranch[] };
    expect(compared).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-copilot-mini' });
    const copilot = compared.branches.find((b) => b.branch_id === 'branch-copilot-mini');
    expect(copilot).toMatchObject({
      runtime: 'copilot',
      receipt_verified: true,
      model_proof: 'unknown',
      model: { requested_model: 'gpt-4.1-mini', requested_provider: null, observed_model: null, status: 'unknown' },
    });
    // Claude's own output names the model; its gateway saw none served: at most unknown.
    expect(compared.branches.find((b) => b.branch_id === 'branch-claude-sonnet')?.model).toMatchObject({ observed_model: 'claude-sonnet-4-5', status: 'unknown' });
  });
});
