/**
 * Issue 31: a contained fork with one Gemini CLI profile and one Claude Code profile, both simulated
 * (the recorded output shapes, real edits), through the real CLI: the Gemini branch runs with the
 * settings Citadel writes into its runtime home, its verifier passes, the comparison recommends it,
 * and its receipt carries the model Gemini CLI reported as served.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GEMINI_SETTINGS } from '../../../main/runtimes/gemini/containment-needs';
import { branch, FIXED_SUM, ForkHarness, HARNESS_API_KEY, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

const EXECUTORS = {
  schema_version: 2,
  executors: [
    { profile_id: 'gemini-flash', runtime: 'gemini', model: 'gemini-2.5-flash', local_provider: null, adapter_options: { approval_mode: 'auto_edit' } },
    { profile_id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: {} },
  ],
};

describe('a fork with a simulated Gemini CLI', () => {
  it('reaches ready with a recommendation; the Gemini receipt carries its model proof', async () => {
    const h = new ForkHarness(tempDir('citadel-gemini-fork-'));
    await h.simulate({ gemini: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, claude: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const executors = path.join(h.base, 'executors.json');
    writeFileSync(executors, JSON.stringify(EXECUTORS));

    // The gateway of a contained Gemini branch needs the operator's Gemini API key on the host.
    const { run, doc } = await h.startJson(['--executors', executors, '--workflow', h.workflowFile], { GEMINI_API_KEY: HARNESS_API_KEY });
    expect(run.code, run.stderr).toBe(0);
    expect(doc).toMatchObject({ schema_version: 2, state: 'ready' });
    expect(branch(doc, 'branch-gemini-flash')).toMatchObject({ runtime: 'gemini', state: 'passed', failure_code: null });
    expect(branch(doc, 'branch-claude-sonnet')).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });

    const receipt = h.readJson<{ receipt: Record<string, unknown> }>(h.attemptFile(doc.fork_id, 'branch-gemini-flash', 'execution-receipt.json')).receipt;
    expect(receipt).toMatchObject({
      status: 'passed',
      containment: { mode: 'contained' },
      diff: { files_changed: 1, insertions: 1, deletions: 1 },
      telemetry: { observed_model: 'gemini-2.5-flash', observed_model_source: 'gemini_result_stats_models', input_tokens: 642, output_tokens: 108, cost_usd: null },
    });

    // The settings Gemini CLI needs were written into the attempt's runtime home; the stream was read live.
    const stdout = readFileSync(h.attemptFile(doc.fork_id, 'branch-gemini-flash', 'stdout.log'), 'utf8');
    expect(stdout).toMatch(/^\{"type":"tool_use",[^\n]*"tool_name":"write_file"/m);
    expect(stdout).not.toContain(HARNESS_API_KEY);
    const settings = path.join(h.attemptFile(doc.fork_id, 'branch-gemini-flash', 'home'), 'gemini', '.gemini', 'settings.json');
    expect(JSON.parse(readFileSync(settings, 'utf8'))).toEqual(GEMINI_SETTINGS);
    expect(existsSync(path.join(h.attemptFile(doc.fork_id, 'branch-claude-sonnet', 'home'), 'gemini'))).toBe(false);

    const compare = await h.cli(['fork', 'compare', doc.fork_id, '--json']);
    expect(compare.code, compare.stderr).toBe(0);
    const comparison = JSON.parse(compare.stdout) as { outcome: string; recommended_branch_id: string | null; branches: { branch_id: string; model: Record<string, unknown>; model_proof: string }[] };
    expect(comparison).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-gemini-flash' });
    expect(comparison.branches.find((b) => b.branch_id === 'branch-gemini-flash')).toMatchObject({
      // Gemini's own stdout names the model; its gateway saw none served (the stand-in calls no provider): at most unknown.
      model: { requested_model: 'gemini-2.5-flash', observed_model: 'gemini-2.5-flash', status: 'unknown', observed_model_source: 'gemini_result_stats_models' },
      model_proof: 'unknown',
    });
  });
});
