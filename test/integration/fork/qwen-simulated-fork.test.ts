/**
 * A fork with one Qwen Code profile and one Claude Code profile, both simulated (the simulated qwen
 * prints Qwen Code 0.24.4's recorded stream-json and writes its session file), through the real CLI,
 * contained: it reaches `ready` with a recommendation, and the Qwen branch's receipt carries the
 * served model read from that session file.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { branch, FIXED_SUM, ForkHarness, HARNESS_API_KEY, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const ENV = { CITADEL_KEYSTORE: 'file', OPENAI_API_KEY: HARNESS_API_KEY };
const SERVED = 'qwen3-coder-plus-2026-11';

describe('a fork with a simulated qwen profile', () => {
  it('reaches ready with a recommendation; the qwen receipt carries the served model from its session file', { timeout: 180_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-qwen-fork-'));
    await h.simulate({
      qwen: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }], observed_model: SERVED },
      claude: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] },
    });
    const executors = path.join(h.base, 'executors.json');
    writeFileSync(
      executors,
      JSON.stringify({
        schema_version: 2,
        executors: [
          { profile_id: 'qwen-coder', runtime: 'qwen', model: 'qwen3-coder-plus', local_provider: null, adapter_options: {} },
          { profile_id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: {} },
        ],
      }),
    );
    const { run, doc } = await h.startJson(['--executors', executors, '--workflow', h.workflowFile], ENV);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.state).toBe('ready');
    expect(branch(doc, 'branch-qwen-coder')).toMatchObject({ runtime: 'qwen', state: 'passed', failure_code: null });
    expect(branch(doc, 'branch-claude-sonnet')).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });

    const { receipt } = h.readJson<{ receipt: Record<string, unknown> }>(h.attemptFile(doc.fork_id, 'branch-qwen-coder', 'execution-receipt.json'));
    expect(receipt).toMatchObject({
      status: 'passed',
      containment: { mode: 'contained' },
      // The edit's two requests, 321/54 each, as result.usage reports them.
      telemetry: { observed_model: SERVED, observed_model_source: 'qwen_session_api_response', input_tokens: 642, output_tokens: 108, cost_usd: null },
    });

    const compared = JSON.parse((await h.cli(['fork', 'compare', doc.fork_id, '--json'], ENV)).stdout) as Record<string, unknown>;
    expect(compared).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-qwen-coder' });
    const qwenBranch = (compared.branches as { branch_id: string; receipt_verified: boolean; model: Record<string, unknown> }[]).find((b) => b.branch_id === 'branch-qwen-coder');
    // The profile asked for qwen3-coder-plus and the provider answered as another model: the proof says so, from the runtime's own record.
    expect(qwenBranch).toMatchObject({ receipt_verified: true, model: { requested_model: 'qwen3-coder-plus', observed_model: SERVED, observed_model_source: 'qwen_session_api_response' } });
  });
});
