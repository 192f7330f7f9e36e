/**
 * Issue 31 acceptance: a contained fork with one profile of each of the six registered runtimes,
 * all simulated (main/demo/simulated-runtime prints each CLI's recorded output shapes and makes real
 * edits), through the real CLI. It reaches `ready` with a recommendation, and every branch's model
 * proof travels through its receipt, `fork compare`, the replay, the proof report and the in-toto
 * attestation, which verifies offline.
 *
 * Only the Gemini branch writes the fix; the other five write a wrong one and fail the verifier. The
 * simulated runtimes call no provider, so each gateway's wire saw nothing and the proof rests on each
 * runtime's own report, written inside the sandbox: Claude, Codex and Gemini name the requested model
 * (shown, but unknown: a wire that saw no served model leaves a runtime's claim at most unknown, review
 * 31); Qwen's session file names another served model (failed); OpenCode and Copilot never name the
 * served model (unknown, never the requested one).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ComparedBranch } from '../../../shared/fork/compare';
import type { ExecutionReceipt } from '../../../shared/fork/receipts';
import type { AttestationVerification } from '../../../shared/publish/attestation';
import type { ProofReport, Replay } from '../../../shared/publish/replay';
import { wireFactsOf } from '../../../shared/runtime/wire-facts';
import { FIXED_SUM, ForkHarness, HARNESS_API_KEY, WRONG_SUM } from '../../support/fork-harness';
import { runCli, type CliRun } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const QWEN_SERVED = 'qwen3-coder-plus-2026-11';
// Each contained branch's gateway needs its provider's key on the host (Claude's and Codex's come with the harness).
const ENV = { CITADEL_KEYSTORE: 'file', GEMINI_API_KEY: HARNESS_API_KEY, OPENAI_API_KEY: HARNESS_API_KEY, COPILOT_PROVIDER_API_KEY: HARNESS_API_KEY };

const PROFILES = [
  { profile_id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: {} },
  { profile_id: 'codex-mini', runtime: 'codex', model: 'gpt-5.1-codex-mini', local_provider: null, adapter_options: {} },
  { profile_id: 'copilot-mini', runtime: 'copilot', model: 'gpt-4.1-mini', local_provider: null, adapter_options: {} },
  { profile_id: 'gemini-flash', runtime: 'gemini', model: 'gemini-2.5-flash', local_provider: null, adapter_options: { approval_mode: 'auto_edit' } },
  { profile_id: 'opencode-gpt', runtime: 'opencode', model: 'gpt-5.1', local_provider: null, adapter_options: {} },
  { profile_id: 'qwen-coder', runtime: 'qwen', model: 'qwen3-coder-plus', local_provider: null, adapter_options: {} },
];

/** Per branch (sorted as compare sorts them): the model proof every artifact must carry. */
const EXPECTED = [
  { branch_id: 'branch-claude-sonnet', runtime: 'claude', requested: 'claude-sonnet-4-5', observed: 'claude-sonnet-4-5', source: 'claude_result_model_usage', proof: 'unknown', passes: false },
  { branch_id: 'branch-codex-mini', runtime: 'codex', requested: 'gpt-5.1-codex-mini', observed: 'gpt-5.1-codex-mini', source: 'codex_rollout_turn_context', proof: 'unknown', passes: false },
  { branch_id: 'branch-copilot-mini', runtime: 'copilot', requested: 'gpt-4.1-mini', observed: null, source: null, proof: 'unknown', passes: false },
  { branch_id: 'branch-gemini-flash', runtime: 'gemini', requested: 'gemini-2.5-flash', observed: 'gemini-2.5-flash', source: 'gemini_result_stats_models', proof: 'unknown', passes: true },
  { branch_id: 'branch-opencode-gpt', runtime: 'opencode', requested: 'gpt-5.1', observed: null, source: null, proof: 'unknown', passes: false },
  { branch_id: 'branch-qwen-coder', runtime: 'qwen', requested: 'qwen3-coder-plus', observed: QWEN_SERVED, source: 'qwen_session_api_response', proof: 'failed', passes: false },
] as const;

const ok = (run: CliRun, what: string): CliRun => {
  expect(run.code, `${what}: ${run.stdout}${run.stderr}`).toBe(0);
  return run;
};

describe('a fork with one profile of each of the six runtimes', () => {
  it('reaches ready with a recommendation; receipts, compare, replay, proof and attestation carry each model proof', { timeout: 240_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-six-runtimes-'));
    const wrong = { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] };
    await h.simulate({
      ...wrong,
      gemini: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] },
      qwen: { ...wrong, observed_model: QWEN_SERVED },
    });
    const executors = path.join(h.base, 'executors.json');
    writeFileSync(executors, JSON.stringify({ schema_version: 2, executors: PROFILES }));

    const { run, doc } = await h.startJson(['--executors', executors, '--workflow', h.workflowFile], ENV);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.state, JSON.stringify(doc)).toBe('ready');
    expect(doc.branches.map((b) => [b.branch_id, b.runtime, b.state, b.failure_code])).toEqual(
      EXPECTED.map((e) => [e.branch_id, e.runtime, e.passes ? 'passed' : 'failed', e.passes ? null : 'VERIFIER_FAILED']),
    );

    // Each signed receipt: its runtime's telemetry names the observed model and where it came from; contained, with a gateway that saw nothing.
    for (const e of EXPECTED) {
      const { receipt } = h.readJson<{ receipt: ExecutionReceipt }>(h.attemptFile(doc.fork_id, e.branch_id, 'execution-receipt.json'));
      expect(receipt, e.branch_id).toMatchObject({ status: e.passes ? 'passed' : 'failed', containment: { mode: 'contained' }, telemetry: { observed_model: e.observed, observed_model_source: e.source } });
      expect(receipt.wire, e.branch_id).toEqual(wireFactsOf([]));
    }

    const compared = JSON.parse(ok(await h.cli(['fork', 'compare', doc.fork_id, '--json'], ENV), 'compare').stdout) as { outcome: string; recommended_branch_id: string | null; branches: ComparedBranch[] };
    expect(compared).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-gemini-flash' });
    expect(compared.branches.map((b) => [b.branch_id, b.runtime, b.receipt_verified, b.comparable, b.verifier_status, b.model_proof, b.model])).toEqual(
      EXPECTED.map((e) => [
        e.branch_id,
        e.runtime,
        true,
        true,
        e.passes ? 'passed' : 'failed',
        e.proof,
        { requested_model: e.requested, requested_provider: null, observed_model: e.observed, status: e.proof, observed_model_source: e.source, warnings: expect.any(Array) },
      ]),
    );
    expect(compared.branches.find((b) => b.branch_id === 'branch-qwen-coder')?.warnings).toContain('model_mismatch');
    expect(compared.branches.find((b) => b.branch_id === 'branch-opencode-gpt')?.warnings).toContain('model_unproven');

    const files = { replay: path.join(h.base, 'replay.json'), proof: path.join(h.base, 'proof.json'), bundle: path.join(h.base, 'fork.intoto.jsonl'), pem: path.join(h.base, 'issuer.pem') };
    ok(await h.cli(['fork', 'replay', doc.fork_id, '--output', files.replay], ENV), 'replay');
    ok(await h.cli(['fork', 'proof', doc.fork_id, '--output', files.proof], ENV), 'proof');
    ok(await h.cli(['fork', 'attest', doc.fork_id, '--output', files.bundle], ENV), 'attest');
    const exported = JSON.parse(ok(await h.cli(['keys', 'export', '--json'], ENV), 'keys export').stdout) as { public_key_pem: string; public_key_digest: string };
    writeFileSync(files.pem, exported.public_key_pem);

    const replay = JSON.parse(readFileSync(files.replay, 'utf8')) as Replay;
    expect(replay.comparison).toEqual({ outcome: 'recommend', recommended_branch_id: 'branch-gemini-flash' });
    const shownModels = (branches: Replay['branches']) => [...branches].sort((a, b) => (a.branch_id < b.branch_id ? -1 : 1)).map((b) => [b.branch_id, b.runtime, b.receipt_verified, b.requested_model, b.observed_model, b.model_proof]);
    const expectedModels = EXPECTED.map((e) => [e.branch_id, e.runtime, true, e.requested, e.observed, e.proof]);
    expect(shownModels(replay.branches)).toEqual(expectedModels);

    const proof = JSON.parse(readFileSync(files.proof, 'utf8')) as ProofReport;
    expect(proof.counts).toEqual({ branches: 6, comparable: 6, verified_receipts: 6, model_proof: { passed: 0, failed: 1, unknown: 5 } });
    expect(proof.comparison).toEqual(replay.comparison);
    expect(shownModels(proof.replay.branches)).toEqual(expectedModels);

    // `citadel verify` as someone without the fork root: an empty CITADEL_HOME, only the bundle, the PEM, the proof and the replay.
    const emptyHome = tempDir('citadel-six-verify-');
    const verified = await runCli(['verify', files.bundle, '--public-key', files.pem, '--proof', files.proof, '--replay', files.replay, '--json'], {
      env: { PATH: process.env.PATH, HOME: emptyHome, CITADEL_HOME: emptyHome },
      cwd: emptyHome,
    });
    ok(verified, 'verify');
    expect(readdirSync(emptyHome)).toEqual([]);
    const report = JSON.parse(verified.stdout) as AttestationVerification;
    expect(report).toMatchObject({ verified: true, signer: 'verified', key_id: exported.public_key_digest, fork_id: doc.fork_id, proof: 'matched', replay: 'matched', failure: null });
    // One branch envelope per verified receipt (v2: each ran through a gateway), then the decision.
    expect(report.envelopes.map((e) => [e.predicate_type, e.subjects.map((s) => s.name)])).toEqual([
      ...EXPECTED.map((e) => ['urn:citadel:attestation:branch-result:v2', [`citadel/${doc.fork_id}/${e.branch_id}`]]),
      ['urn:citadel:attestation:fork-decision:v1', EXPECTED.map((e) => `citadel/${doc.fork_id}/${e.branch_id}`)],
    ]);
    EXPECTED.forEach((e, i) => {
      expect(report.envelopes[i]?.facts, e.branch_id).toEqual(
        expect.arrayContaining([
          expect.stringContaining(`branch ${e.branch_id} (profile ${e.branch_id.replace(/^branch-/, '')}, runtime ${e.runtime})`),
          `model proof ${e.proof}: requested ${e.requested}, observed ${e.observed ?? 'nothing'}`,
          expect.stringMatching(e.passes ? /^verifier passed/ : /^verifier failed/),
        ]),
      );
    });
    expect(report.envelopes[6]?.facts).toEqual(expect.arrayContaining([`fork ${doc.fork_id}: 6 of 6 branches have a verified receipt`, 'comparison recommend, recommends branch-gemini-flash']));
  });
});
