/**
 * Adding a runtime needs no engine edit: a complete fork runs with the test-only conformance-echo
 * runtime beside a built-in one, through the orchestrator's public functions with the adapter only
 * injected into OrchestratorContext.adapters; receipts verify, comparison and replay carry its label.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../main/host/open-context';
import { verifyFork } from '../../main/evidence/verify-fork';
import { compareFork } from '../../main/orchestrator/compare-fork';
import type { OrchestratorContext } from '../../main/host/context';
import { createFork, type CreateForkInput } from '../../main/orchestrator/create-fork';
import { driveFork } from '../../main/orchestrator/drive-fork';
import { labelledStatus } from '../../main/orchestrator/fork-labels';
import { buildReplay } from '../../main/publish/build-replay';
import { renderPublic } from '../../main/publish/export-public';
import { BUILTIN_ADAPTERS } from '../../main/runtimes/registry';
import type { RuntimeAdapter } from '../../main/runtimes/adapter-contract/runtime-adapter';
import { validateExecutorFile } from '../../shared/executors/validate-executor-file';
import type { RuntimeProfile } from '../../shared/executors/runtime-profile';
import { ReplaySchema } from '../../shared/publish/replay';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../support/fork-harness';
import { REPO_ROOT } from '../support/run-cli';
import { useTempDirs } from '../support/temp-dir';
import { installEchoExecutable } from './conformance-echo/executable';
import { CONFORMANCE_ADAPTERS } from './registry';

const tempDir = useTempDirs();
const BUILT_SUPERVISOR = path.join(REPO_ROOT, 'out', 'cli', 'supervisor.mjs');

const CLAUDE: RuntimeProfile = { profile_id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: {} };
const ECHO: RuntimeProfile = { profile_id: 'echo', runtime: 'conformance-echo', model: null, local_provider: null, adapter_options: { verbosity: 'loud' } };

/** A real repository with a failing test; simulated claude writes a wrong fix, conformance-echo the right one. */
async function setUp(adapters: Readonly<Record<string, RuntimeAdapter>>): Promise<{ h: ForkHarness; ctx: OrchestratorContext; input: CreateForkInput }> {
  const h = new ForkHarness(tempDir('citadel-echo-fork-'));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
  await installEchoExecutable(h.bin, [{ path: 'src/sum.js', content: FIXED_SUM }]);
  const ctx = await openOrchestratorContext({ env: h.env({ CITADEL_KEYSTORE: 'file' }), supervisorScript: BUILT_SUPERVISOR, adapters });
  const input: CreateForkInput = { objective: 'Fix the sum function', executors: { kind: 'executors', profiles: [CLAUDE, ECHO] }, repo: h.repo, workflowFile: h.workflowFile };
  return { h, ctx, input };
}

describe('a runtime registered only in tests', () => {
  it('runs a complete fork: launched, collected, signed, verified, compared and replayed like a built-in', async () => {
    const { ctx, input } = await setUp(CONFORMANCE_ADAPTERS);
    const created = await createFork(ctx, input);
    const record = await driveFork(ctx, created.record.fork_id, 'all');

    expect(record).toMatchObject({ schema_version: 2, state: 'ready' });
    const status = await labelledStatus(ctx, record);
    expect(status).toMatchObject({ title: 'Fix the sum function', repo_name: path.basename(String(input.repo)) });
    expect(status.branches.map((b) => [b.branch_id, b.runtime, b.state, b.failure_code])).toEqual([
      ['branch-claude-sonnet', 'claude', 'failed', 'VERIFIER_FAILED'],
      ['branch-echo', 'conformance-echo', 'passed', null],
    ]);

    const verified = await verifyFork(ctx, record.fork_id);
    expect(verified.forkReasons).toEqual([]);
    const echo = verified.branches.find((b) => b.branch_id === 'branch-echo');
    expect(echo).toMatchObject({ runtime: 'conformance-echo', receipt_verified: true, reasons: [] });
    expect(echo?.receipt).toMatchObject({
      runtime: 'conformance-echo',
      status: 'passed',
      verifier: { status: 'passed' },
      // The echo runtime reports tokens (prompt bytes in, written bytes out) and never a model or cost.
      telemetry: { observed_model: null, observed_model_source: null, output_tokens: Buffer.byteLength(FIXED_SUM), cost_usd: null },
    });
    expect(echo?.model_proof.status).toBe('unknown');

    const comparison = await compareFork(ctx, record.fork_id);
    expect(comparison).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-echo' });
    expect(comparison.branches.find((b) => b.branch_id === 'branch-echo')).toMatchObject({ runtime: 'conformance-echo', comparable: true });

    const replay = await buildReplay(ctx, record.fork_id);
    const published = await renderPublic(replay, ReplaySchema);
    expect(replay.branches.find((b) => b.branch_id === 'branch-echo')).toMatchObject({ runtime: 'conformance-echo', receipt_verified: true, model_proof: 'unknown' });
    expect(published.text).toContain('"runtime": "conformance-echo"');
  }, 60_000);

  it('is refused by a host that did not register it, before anything is written', async () => {
    const { ctx, input } = await setUp(BUILTIN_ADAPTERS);
    await expect(createFork(ctx, input)).rejects.toMatchObject({ code: 'RUNTIME_UNKNOWN' });
    expect(await ctx.store.listForkIds()).toEqual([]);
  });

  it('has its profiles checked by its own adapter schema', async () => {
    const { ctx, input } = await setUp(CONFORMANCE_ADAPTERS);
    const loudest = { ...ECHO, adapter_options: { verbosity: 'shouting' } };
    await expect(createFork(ctx, { ...input, executors: { kind: 'executors', profiles: [CLAUDE, loudest] } })).rejects.toMatchObject({
      code: 'EXECUTOR_PROFILE_INVALID',
      violations: [expect.objectContaining({ path: '$.adapter_options.verbosity', rule: 'invalid_value' })],
    });
  });

  it('cannot appear in an executor file, which stays exactly claude | codex', () => {
    const result = validateExecutorFile({ schema_version: 1, executors: [CLAUDE, ECHO] });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.violations).toEqual([expect.objectContaining({ path: '$.executors[1].runtime', rule: 'invalid_value' })]);
  });
});
