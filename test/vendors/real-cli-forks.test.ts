/**
 * Whole forks through Citadel's real CLI with the REAL Claude Code 2.1.328 and Codex 0.169.0 as the
 * executors, against scripted model servers on loopback (the suite runs in a loopback-only network
 * namespace). Proves that the canonical argv is accepted, that the scripted tool calls really edit
 * each branch's own worktree and nothing else, that the verifier judges the result, that receipts
 * verify and that the observed model comes from each runtime's own trusted output.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { digestOf } from '../../shared/digest';
import { LiveTrailSchema } from '../../shared/fork/live-trail';
import { branch, BUGGY_SUM, FIXED_SUM } from '../support/fork-harness';
import { startAnthropicServer, type AnthropicServer } from '../support/model-servers/anthropic-server';
import { startLocalModelServer, type LocalModelServer } from '../support/model-servers/local-model-server';
import { branchOf, CLAUDE_FIX, codexPatchFix, codexShellFix, notesFor } from './scripted-agents';
import { CLAUDE_PROFILE, LMSTUDIO_PROFILE, OLLAMA_PROFILE, useVendorTempDirs, VendorFork } from './vendor-fork';

const tempDir = useVendorTempDirs();
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Same Claude profile in `dontAsk` mode, which can edit only contained (the tool policy then grants `Edit(./**)`). */
const CLAUDE_DONT_ASK = { ...CLAUDE_PROFILE, profile_id: 'claude-dontask', adapter_options: { permission_mode: 'dontAsk' } } as const;
const FIXING = ['branch-claude-dontask', 'branch-claude-sonnet', 'branch-codex-lmstudio', 'branch-codex-ollama'] as const;

function* filesNamed(dir: string, name: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== '.git') yield* filesNamed(full, name);
    else if (entry.name === name) yield full;
  }
}

describe('real vendor CLIs through citadel fork start', () => {
  it('Claude, Codex + Ollama and Codex + LM Studio each fix their own worktree inside the sandbox, reaching their scripted servers only through the egress bridge; verifier, receipts and model proof hold', async () => {
    const fork = new VendorFork(tempDir());
    const anthropic: AnthropicServer = await startAnthropicServer({ scenario: { kind: 'script', turns: CLAUDE_FIX } });
    const local: LocalModelServer = await startLocalModelServer({
      scenario: { kind: 'script', turns: (c) => (branchOf(c) === 'branch-codex-ollama' ? codexPatchFix('branch-codex-ollama') : codexShellFix('branch-codex-lmstudio')) },
    });
    servers.push(anthropic, local);

    const doc = await fork.start([CLAUDE_PROFILE, CLAUDE_DONT_ASK, OLLAMA_PROFILE, LMSTUDIO_PROFILE], {
      ANTHROPIC_BASE_URL: anthropic.origin,
      ANTHROPIC_API_KEY: 'sk-ant-test-dummy',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      // Both local providers honour CODEX_OSS_BASE_URL on Codex 0.169.0 (LM Studio does not need its fixed port 1234).
      CODEX_OSS_BASE_URL: `${local.origin}/v1`,
    });
    const id = doc.fork_id;

    for (const branchId of FIXING) expect(branch(doc, branchId), branchId).toMatchObject({ state: 'passed', failure_code: null });
    expect(doc.state).toBe('ready');

    // The real CLIs accepted exactly the canonical argv that `executors validate` prints (decisions D5).
    const validated = await fork.cli(['executors', 'validate', path.join(fork.base, 'executors.json'), '--json']);
    for (const profile of (JSON.parse(validated.stdout) as { profiles: { branch_id: string; argv: string[] }[] }).profiles) {
      expect(fork.branchRun(id, profile.branch_id).receipt.argv_digest, profile.branch_id).toBe(digestOf(profile.argv));
    }

    // Each edit landed in its own worktree and in Citadel's result commit, and nowhere else.
    expect(fork.git(fork.repo, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(fork.repo, 'src', 'sum.js'), 'utf8')).toBe(BUGGY_SUM);
    for (const branchId of FIXING) {
      const tree = fork.worktree(id, branchId);
      const { receipt } = fork.branchRun(id, branchId);
      expect(readFileSync(path.join(tree, 'src', 'sum.js'), 'utf8'), branchId).toBe(FIXED_SUM);
      expect(readFileSync(path.join(tree, 'NOTES.md'), 'utf8'), branchId).toBe(notesFor(branchId));
      expect(receipt.result_commit).toBe(fork.git(tree, 'rev-parse', 'HEAD'));
      expect(fork.git(tree, 'show', `${receipt.result_commit}:src/sum.js`) + '\n').toBe(FIXED_SUM);
      expect(fork.git(tree, 'status', '--porcelain')).toBe('');
      // result_symlinks (issue 12) reads the result's links from git objects before any other step.
      expect(receipt.verifier.steps.map((s) => `${s.id}:${s.status}:${s.exit_code}`)).toEqual([
        'result_symlinks:passed:null',
        'protected_paths:passed:null',
        'git_diff_check:passed:0',
        'workflow_verifier:passed:0',
      ]);
    }
    const notes = [...filesNamed(fork.base, 'NOTES.md')].sort();
    expect(notes).toEqual(FIXING.map((branchId) => path.join(fork.worktree(id, branchId), 'NOTES.md')).sort());

    // Every branch ran contained (bubblewrap), and its provider was reachable only through its egress bridge:
    // the sandbox has no network of its own, so every request the scripted servers logged came through one.
    for (const branchId of FIXING) {
      expect(fork.branchRun(id, branchId).receipt.containment, branchId).toMatchObject({ mode: 'contained', backend: 'bubblewrap' });
      expect(existsSync(fork.harness.attemptFile(id, branchId, 'egress-denials.jsonl')), branchId).toBe(false);
    }

    // Each runtime got only its allowlisted variables (decisions D6): not CITADEL_HOME, the D-Bus address or the other runtime's endpoint.
    // (Contained, the sandbox then points HOME, TMPDIR and the home variable into the attempt's runtime home; the receipt names the operator's.)
    expect(fork.branchRun(id, 'branch-claude-sonnet').receipt.env_names).toEqual(['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'CITADEL_PORT', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC', 'HOME', 'LANG', 'PATH']);
    expect(fork.branchRun(id, 'branch-codex-ollama').receipt.env_names).toEqual(['CITADEL_PORT', 'CODEX_HOME', 'CODEX_OSS_BASE_URL', 'HOME', 'LANG', 'PATH']);

    // Observed models come from each runtime's own output: Claude's modelUsage, Codex's rollout under CODEX_HOME.
    expect(fork.branchRun(id, 'branch-claude-sonnet').receipt.telemetry).toMatchObject({ observed_model: 'claude-sonnet-4-5', observed_model_source: 'claude_result_model_usage' });
    for (const [branchId, model] of [['branch-codex-ollama', 'qwen3-coder:30b'], ['branch-codex-lmstudio', 'qwen3-coder-30b']] as const) {
      const { receipt, stdout } = fork.branchRun(id, branchId);
      expect(receipt.telemetry, branchId).toMatchObject({ observed_model: model, observed_model_source: 'codex_rollout_turn_context' });
      expect(stdout).not.toContain(`"model":"${model}"`);
      const threadId = /"thread_id":"([0-9a-f-]{36})"/.exec(stdout)?.[1];
      // Contained, CODEX_HOME is the attempt's own runtime home, never the operator's.
      const sessions = path.join(fork.runtimeHome(id, branchId), 'codex', 'sessions');
      const rollout = readdirSync(sessions, { recursive: true, encoding: 'utf8' }).find((file) => threadId !== undefined && file.endsWith(`-${threadId}.jsonl`));
      expect(rollout, `rollout of ${branchId}`).toBeDefined();
      const turnContext = readFileSync(path.join(sessions, rollout ?? ''), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { type: string; payload: { model?: string; cwd?: string } })
        .find((record) => record.type === 'turn_context');
      expect(turnContext?.payload).toMatchObject({ model, cwd: fork.worktree(id, branchId) });
    }

    // What each real Codex printed as it ran was read live and kept in the attempt's live trail
    // (issue 14): its session, its turn and its items, in plain words, numbered as streamed.
    for (const branchId of ['branch-codex-ollama', 'branch-codex-lmstudio']) {
      const trail = LiveTrailSchema.parse(JSON.parse(readFileSync(fork.harness.attemptFile(id, branchId, 'live-trail.json'), 'utf8')));
      const kinds = trail.activities.map((a) => a.kind);
      expect(kinds, branchId).toEqual(expect.arrayContaining(['session', 'turn_started', 'turn_completed']));
      expect(kinds.some((kind) => kind === 'item_started' || kind === 'command_started'), branchId).toBe(true);
      expect(trail.activities.map((a) => a.seq), branchId).toEqual(trail.activities.map((_, i) => i + 1));
    }
    // Claude Code prints its one result at exit: nothing of it streams.
    const claudeTrail = fork.harness.attemptFile(id, 'branch-claude-sonnet', 'live-trail.json');
    if (existsSync(claudeTrail)) expect(LiveTrailSchema.parse(JSON.parse(readFileSync(claudeTrail, 'utf8'))).activities).toEqual([]);

    // dontAsk edits contained: the tool policy grants `Edit(./**)` there, so nothing was denied (runtime-only it denies Edit and Write).
    const dontAsk = fork.branchRun(id, 'branch-claude-dontask');
    expect((JSON.parse(dontAsk.stdout) as { permission_denials: { tool_name: string }[] }).permission_denials).toEqual([]);

    // compare re-verifies every receipt from disk; model proof passes where observed = requested.
    const compare = await fork.compare(id);
    expect(compare.outcome).toBe('tie');
    expect(compare.branches).toHaveLength(FIXING.length);
    for (const entry of compare.branches) {
      expect(entry, entry.branch_id).toMatchObject({ receipt_verified: true, comparable: true, model_proof: 'passed' });
    }

    // What the CLIs sent: the requested models, the dummy key, the Ollama probes and LM Studio's warm-up.
    const claudeBodies = anthropic.requests().map((r) => r.body as { model: string; stream: boolean });
    expect(new Set(claudeBodies.map((b) => `${b.model}:${String(b.stream)}`))).toEqual(new Set(['claude-sonnet-4-5:true']));
    expect(new Set(anthropic.requests().map((r) => `${r.method} ${r.url} ${String(r.headers['x-api-key'])}`))).toEqual(new Set(['POST /v1/messages?beta=true sk-ant-test-dummy']));
    const routes = local.requests().map((r) => `${r.method} ${r.url}`);
    expect(routes).toEqual(expect.arrayContaining(['GET /api/version', 'GET /api/tags', 'GET /v1/models', 'POST /v1/responses']));
    expect(local.requests().filter((r) => (r.body as { max_output_tokens?: number } | null)?.max_output_tokens === 1).map((r) => r.body)).toEqual([
      { model: 'qwen3-coder-30b', input: '', max_output_tokens: 1 },
    ]);

    // The tool calls really ran: Claude's allowed `node --test`, Codex's apply_patch and its test run.
    const claudeResults = anthropic.toolResults().filter((r) => r.cwd === fork.worktree(id, 'branch-claude-sonnet'));
    expect(claudeResults.map((r) => r.is_error)).toEqual([false, false, false, false]);
    expect(claudeResults[3]?.content).toMatch(/# pass 1/);
    const ollamaOutputs = local.functionOutputs().filter((r) => r.cwd === fork.worktree(id, 'branch-codex-ollama'));
    expect(ollamaOutputs[1]?.output).toMatch(/# pass 1/);
    expect(existsSync(path.join(fork.repo, 'NOTES.md'))).toBe(false);
  });

  it("FINDING: Claude's own output names the id it asked for; the wire sees the dated id the server answered with, and the exact-match proof fails", async () => {
    const fork = new VendorFork(tempDir());
    const anthropic = await startAnthropicServer({ scenario: { kind: 'script', turns: CLAUDE_FIX }, responseModel: 'claude-sonnet-4-5-20250929' });
    const local = await startLocalModelServer({ scenario: { kind: 'script', turns: codexShellFix('branch-codex-lmstudio') } });
    servers.push(anthropic, local);
    const doc = await fork.start([CLAUDE_PROFILE, LMSTUDIO_PROFILE], {
      ANTHROPIC_BASE_URL: anthropic.origin,
      ANTHROPIC_API_KEY: 'sk-ant-test-dummy',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CODEX_OSS_BASE_URL: `${local.origin}/v1`,
    });
    expect(branch(doc, 'branch-claude-sonnet')).toMatchObject({ state: 'passed' });
    // modelUsage (the only model in --output-format json) is keyed by the requested id (recordings j1);
    // every message_start named the dated one, which the gateway witnessed.
    const { receipt } = fork.branchRun(doc.fork_id, 'branch-claude-sonnet');
    expect(receipt.telemetry).toMatchObject({ observed_model: 'claude-sonnet-4-5', observed_model_source: 'claude_result_model_usage' });
    expect((receipt as unknown as { wire: { served_models: string[] } }).wire.served_models).toEqual(['claude-sonnet-4-5-20250929']);
    // executor-profiles.md: the observed model must match the request exactly; a dated answer to an alias fails (pin the dated id).
    const compare = await fork.compare(doc.fork_id);
    expect(compare.branches.find((b) => b.branch_id === 'branch-claude-sonnet')).toMatchObject({ receipt_verified: true, model_proof: 'failed' });
  });
});
