/**
 * A contained fork of one OpenCode profile and one Claude profile, both simulated (the OpenCode
 * stand-in prints the events recorded from OpenCode 1.18.33), through the real CLI: it reaches
 * `ready` with a recommendation, and OpenCode's receipt carries its model proof. OpenCode never
 * prints its model, and the simulated runtimes call no provider, so the gateway's wire saw none:
 * the proof is `unknown`, never the requested model.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ComparedBranch } from '../../../shared/fork/compare';
import type { ExecutionReceipt } from '../../../shared/fork/receipts';
import { wireFactsOf } from '../../../shared/runtime/wire-facts';
import { branch, FIXED_SUM, ForkHarness, HARNESS_API_KEY, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const ENV = { CITADEL_KEYSTORE: 'file', OPENAI_API_KEY: HARNESS_API_KEY };

describe('a fork with a simulated OpenCode profile', () => {
  it('reaches ready with a recommendation; OpenCode’s receipt carries its tokens, an unknown model and wire facts', { timeout: 180_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-opencode-fork-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] }, opencode: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
    const executors = path.join(h.base, 'executors.json');
    writeFileSync(
      executors,
      JSON.stringify({
        schema_version: 2,
        executors: [
          { profile_id: 'opencode-gpt', runtime: 'opencode', model: 'gpt-5.1', local_provider: null, adapter_options: {} },
          { profile_id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: {} },
        ],
      }),
    );
    const { run, doc } = await h.startJson(['--executors', executors, '--workflow', h.workflowFile], ENV);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.state).toBe('ready');
    expect(branch(doc, 'branch-opencode-gpt')).toMatchObject({ runtime: 'opencode', state: 'passed', failure_code: null });
    expect(branch(doc, 'branch-claude-sonnet')).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });
    expect(readFileSync(path.join(h.worktree(doc.fork_id, 'branch-opencode-gpt'), 'src', 'sum.js'), 'utf8')).toBe(FIXED_SUM);

    const { receipt } = h.readJson<{ receipt: ExecutionReceipt }>(h.attemptFile(doc.fork_id, 'branch-opencode-gpt', 'execution-receipt.json'));
    expect(receipt).toMatchObject({
      status: 'passed',
      telemetry: { observed_model: null, observed_model_source: null, input_tokens: 642, output_tokens: 108, cost_usd: null },
    });
    // Contained: the run had its gateway, which saw no request (the stand-in calls no provider).
    expect(receipt.wire).toEqual(wireFactsOf([]));

    const compared = JSON.parse((await h.cli(['fork', 'compare', doc.fork_id, '--json'], ENV)).stdout) as { outcome: string; recommended_branch_id: string | null; branches: ComparedBranch[] };
    expect(compared).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-opencode-gpt' });
    const opencode = compared.branches.find((b) => b.branch_id === 'branch-opencode-gpt');
    expect(opencode).toMatchObject({
      runtime: 'opencode',
      receipt_verified: true,
      model_proof: 'unknown',
      model: { requested_model: 'gpt-5.1', requested_provider: null, observed_model: null, status: 'unknown' },
      // Citadel counts tokens from the wire when a branch had a gateway: this one saw none.
      input_tokens: 0,
      output_tokens: 0,
      tokens_source: 'gateway_wire',
    });
  });
});
