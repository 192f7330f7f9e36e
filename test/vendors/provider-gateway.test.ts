/**
 * The provider gateway (issue 28) with the REAL Claude Code 2.1.328 and Codex 0.169.0, contained,
 * through Citadel's real CLI, against scripted upstreams on loopback: the operator's key reaches the
 * upstream and never the sandbox; requests the runtime would never make are refused and journaled;
 * the receipt's wire facts are what the upstream served; a provider that serves another model fails
 * the proof whatever the sandbox writes; a login is refreshed on the host; a token budget ends the
 * branch; a local provider on another address and Codex's cloud API over TLS are witnessed alike.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { branch } from '../support/fork-harness';
import { startAnthropicServer, type ScriptedTurn, type ToolResult } from '../support/model-servers/anthropic-server';
import { startLocalModelServer } from '../support/model-servers/local-model-server';
import { sendJson, sendSse, startRecordingServer, type LoggedRequest } from '../support/model-servers/recording-server';
import { startTokenEndpoint } from '../support/token-endpoint';
import { CLAUDE_FIX, codexShellFix, cwdOf } from './scripted-agents';
import { CLAUDE_PROFILE, OLLAMA_PROFILE, useVendorTempDirs, VendorFork } from './vendor-fork';

const tempDir = useVendorTempDirs();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const CLAUDE = 'branch-claude-sonnet';
/** A fork needs two executors: a second Claude profile beside the one under test. */
const CLAUDE_TWIN = { ...CLAUDE_PROFILE, profile_id: 'claude-twin' } as const;
const OLLAMA = 'branch-codex-ollama';
// The profile's model is written into the probe: `node --test` would read another argument as a test file.
const PROBE = readFileSync(path.join(import.meta.dirname, 'gateway-probe.mjs'), 'utf8').replaceAll('process.argv[2]', JSON.stringify(CLAUDE_PROFILE.model));
const hex = (): string => randomBytes(12).toString('hex');

interface WireFacts {
  requests: number;
  completed: number;
  refused: number;
  requested_models: string[];
  served_models: string[];
  input_tokens: number;
  output_tokens: number;
  usage_complete: boolean;
  budget_exceeded: boolean;
  credential_failed: boolean;
}

function wireOf(fork: VendorFork, forkId: string, branchId: string): WireFacts {
  return (fork.branchRun(forkId, branchId).receipt as unknown as { wire: WireFacts }).wire;
}

function denialsOf(fork: VendorFork, forkId: string, branchId: string): { reason: string; method?: string; path?: string }[] {
  const file = fork.harness.attemptFile(forkId, branchId, 'egress-denials.jsonl');
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { reason: string });
  } catch {
    return [];
  }
}

/** What the probe printed, by its first word (`node --test` prefixes a script's output with `# `). */
function probeLines(output: string | undefined): Record<string, string> {
  return Object.fromEntries(
    (output ?? '')
      .split('\n')
      .map((line) => /^(?:# )?([A-Z]+) ?(.*)$/.exec(line.trim()))
      .filter((match) => match !== null)
      .map((match) => [match[1], (match[2] ?? '').trim()]),
  );
}

/** Claude writes the probe into its worktree and runs it with the one command its tool policy allows for that. */
const CLAUDE_PROBE: readonly ScriptedTurn[] = [
  (c) => ({ text: 'Probing.', tool: { name: 'Write', input: { file_path: path.join(cwdOf(c), 'probe.mjs'), content: PROBE } } }),
  () => ({ text: 'Running it.', tool: { name: 'Bash', input: { command: 'node --test probe.mjs', description: 'probe' } } }),
];

function claudeResultsIn(results: readonly ToolResult[], worktree: string): ToolResult[] {
  return results.filter((result) => result.cwd === worktree);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => statSync(path.join(dir, file)).isFile());
}

describe('the provider gateway with the real CLIs', () => {
  it("keeps the operator's key and login out of the sandbox, refuses what the runtime would never ask, and witnesses what the upstreams served", async () => {
    const fork = new VendorFork(tempDir());
    const realKey = `sk-ant-api03-REALKEY-${hex()}`;
    // A login file in the operator's home too: it is never bound into the sandbox either.
    mkdirSync(path.join(fork.home, '.claude'));
    writeFileSync(path.join(fork.home, '.claude', '.credentials.json'), JSON.stringify({ claudeAiOauth: { accessToken: `sk-ant-oat01-OAUTHMARK-${hex()}`, refreshToken: 'r', expiresAt: Date.now() + 3_600_000, scopes: [] } }));
    const anthropic = await startAnthropicServer({ scenario: { kind: 'script', turns: [...CLAUDE_PROBE, ...CLAUDE_FIX] } });
    // An Ollama on "another machine": 127.0.0.2 is not the sandbox's loopback, only the host reaches it.
    const local = await startLocalModelServer({ scenario: { kind: 'script', turns: codexShellFix(OLLAMA) }, host: '127.0.0.2' });
    cleanups.push(() => anthropic.close(), () => local.close());

    const doc = await fork.start([CLAUDE_PROFILE, OLLAMA_PROFILE], { ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: realKey, CODEX_OSS_BASE_URL: `${local.origin}/v1` });
    const id = doc.fork_id;
    for (const branchId of [CLAUDE, OLLAMA]) expect(branch(doc, branchId), branchId).toMatchObject({ state: 'passed', failure_code: null });

    // The upstream got the real key on every request, never the sandbox's placeholder.
    expect(anthropic.requests().length).toBeGreaterThan(0);
    for (const request of anthropic.requests()) {
      expect(request.headers['x-api-key']).toBe(realKey);
      expect(request.headers.authorization).toBeUndefined();
    }

    // Inside, the probe searched the environment, every /proc environ and cmdline, and the filesystem.
    const [probed] = claudeResultsIn(anthropic.toolResults(), fork.worktree(id, CLAUDE)).slice(1, 2);
    const seen = probeLines(probed?.content);
    // The sandbox holds few files of its own (its worktree, its home, the toolchain; /usr is skipped).
    expect(Number(seen.SCANNED), probed?.content).toBeGreaterThan(20);
    expect(seen.SECRETS).toBe('none');
    expect(seen.CREDFILES?.split(' ').filter((file) => file.includes('.credentials.json')) ?? []).toEqual([]);
    // With its placeholder, the sandbox's requests the runtime never makes were refused; a wrong key too.
    expect([seen.MCP, seen.OTHERMODEL, seen.WEBFETCH, seen.WRONGKEY]).toEqual(['403', '403', '403', '403']);
    // (The conversation itself quotes the probe's source, so only the requests' own fields are looked at.)
    const body = (r: LoggedRequest): { model?: string; mcp_servers?: unknown; tools?: { type?: string }[] } => r.body as never;
    expect(anthropic.requests().filter((r) => body(r).mcp_servers !== undefined || body(r).model !== CLAUDE_PROFILE.model || (body(r).tools ?? []).some((t) => t.type?.startsWith('web_')))).toEqual([]);
    expect(denialsOf(fork, id, CLAUDE).map((d) => d.reason).sort()).toEqual(['mcp_servers_refused', 'model_not_allowed', 'placeholder_mismatch', 'server_tool_refused']);

    // The receipts' wire facts are what the upstreams served, witnessed by the gateway.
    const served = anthropic.requests().length;
    expect(wireOf(fork, id, CLAUDE)).toMatchObject({
      requests: served + 4,
      completed: served,
      refused: 4,
      requested_models: ['claude-opus-4-5', CLAUDE_PROFILE.model].sort(),
      served_models: [CLAUDE_PROFILE.model],
      input_tokens: 123 * served,
      output_tokens: 45 * served,
      budget_exceeded: false,
      credential_failed: false,
    });
    const responses = local.requests().filter((r) => r.url === '/v1/responses').length;
    expect(wireOf(fork, id, OLLAMA)).toMatchObject({ refused: 0, served_models: [OLLAMA_PROFILE.model], input_tokens: 321 * responses, output_tokens: 54 * responses });
    const compare = await fork.compare(id);
    for (const branchId of [CLAUDE, OLLAMA]) expect(compare.branches.find((b) => b.branch_id === branchId), branchId).toMatchObject({ receipt_verified: true, model_proof: 'passed' });
    // No file of the runtime home holds the key either (the runtime's own transcript included).
    const home = fork.runtimeHome(id, CLAUDE);
    for (const file of filesUnder(home)) expect(readFileSync(path.join(home, file), 'utf8'), file).not.toContain(realKey);
  });

  it("a provider that serves another model fails the proof, whatever the runtime's own records say", async () => {
    const fork = new VendorFork(tempDir());
    const anthropic = await startAnthropicServer({ scenario: { kind: 'script', turns: CLAUDE_FIX }, responseModel: 'claude-haiku-4-5' });
    // An Ollama tag pointing elsewhere: the provider answers with another model than the profile asks.
    const local = await startLocalModelServer({ scenario: { kind: 'script', turns: codexShellFix(OLLAMA) }, responseModel: 'qwen3-coder:7b' });
    cleanups.push(() => anthropic.close(), () => local.close());
    const doc = await fork.start([CLAUDE_PROFILE, OLLAMA_PROFILE], { ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: `sk-ant-${hex()}`, CODEX_OSS_BASE_URL: `${local.origin}/v1` });
    const id = doc.fork_id;
    expect(wireOf(fork, id, CLAUDE)).toMatchObject({ requested_models: [CLAUDE_PROFILE.model], served_models: ['claude-haiku-4-5'] });
    expect(wireOf(fork, id, OLLAMA)).toMatchObject({ requested_models: [OLLAMA_PROFILE.model], served_models: ['qwen3-coder:7b'] });
    // Codex's rollout in its runtime home (the sandbox writes there; the proof used to read it) names the requested model.
    expect(fork.branchRun(id, OLLAMA).receipt.telemetry).toMatchObject({ observed_model: OLLAMA_PROFILE.model, observed_model_source: 'codex_rollout_turn_context' });
    const compare = await fork.compare(id);
    for (const branchId of [CLAUDE, OLLAMA]) expect(compare.branches.find((b) => b.branch_id === branchId), branchId).toMatchObject({ model_proof: 'failed' });
  });

  it("refreshes an expired Claude login on the host, never in the sandbox; a refresh that fails ends the branch RUNTIME_AUTH_FAILED", async () => {
    for (const outcome of ['refreshed', 'refused'] as const) {
      const fork = new VendorFork(tempDir());
      const fresh = `sk-ant-oat01-fresh-${hex()}`;
      const tokens = await startTokenEndpoint(() => (outcome === 'refreshed' ? { status: 200, body: { access_token: fresh, refresh_token: 'refresh-2', expires_in: 28_800, scope: 'user:inference' } } : { status: 400, body: { error: 'invalid_grant' } }));
      const bearer = (request: LoggedRequest): boolean => request.headers.authorization === `Bearer ${fresh}` && String(request.headers['anthropic-beta']).split(',').includes('oauth-2025-04-20');
      const anthropic = await startAnthropicServer({ scenario: { kind: 'script', turns: CLAUDE_FIX }, authorize: bearer });
      cleanups.push(() => anthropic.close(), () => tokens.close());
      const credentials = path.join(fork.home, '.claude', '.credentials.json');
      mkdirSync(path.dirname(credentials));
      writeFileSync(credentials, JSON.stringify({ claudeAiOauth: { accessToken: 'sk-ant-oat01-expired', refreshToken: 'refresh-1', expiresAt: Date.now() - 60_000, scopes: ['user:inference'], subscriptionType: 'max' } }), { mode: 0o600 });
      const doc = await fork.start([CLAUDE_PROFILE, CLAUDE_TWIN], { ANTHROPIC_BASE_URL: anthropic.origin, CLAUDE_CODE_CUSTOM_OAUTH_URL: new URL(tokens.url).origin, CLAUDE_CODE_MAX_RETRIES: '0' });
      // Refreshed: once for both branches (under the lock the second finds what the first wrote back). Refused: each branch tries.
      expect(tokens.requests.every((r) => r.refresh_token === 'refresh-1')).toBe(true);
      expect(tokens.requests.length).toBe(outcome === 'refreshed' ? 1 : 2);
      if (outcome === 'refreshed') {
        for (const branchId of [CLAUDE, 'branch-claude-twin']) expect(branch(doc, branchId), branchId).toMatchObject({ state: 'passed' });
        expect(anthropic.requests().every(bearer)).toBe(true);
        // Written back for the operator's own CLI, other fields kept.
        expect(JSON.parse(readFileSync(credentials, 'utf8'))).toMatchObject({ claudeAiOauth: { accessToken: fresh, refreshToken: 'refresh-2', subscriptionType: 'max' } });
      } else {
        for (const branchId of [CLAUDE, 'branch-claude-twin']) expect(branch(doc, branchId), branchId).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_AUTH_FAILED' });
        expect(anthropic.requests()).toEqual([]);
        expect(wireOf(fork, doc.fork_id, CLAUDE)).toMatchObject({ credential_failed: true });
      }
    }
  });

  it('a branch past its token budget ends BUDGET_EXCEEDED: the gateway refuses further requests and ends the run', async () => {
    const fork = new VendorFork(tempDir());
    const anthropic = await startAnthropicServer({ scenario: { kind: 'script', turns: CLAUDE_FIX } });
    cleanups.push(() => anthropic.close());
    // Each scripted answer reports 123 + 45 tokens: the second crosses 300, the third is refused.
    const doc = await fork.start([CLAUDE_PROFILE, CLAUDE_TWIN], { ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: `sk-ant-${hex()}` }, ['--budget-tokens', '300']);
    // Each branch has its own budget: both spend it the same way.
    for (const branchId of [CLAUDE, 'branch-claude-twin']) {
      expect(branch(doc, branchId), branchId).toMatchObject({ state: 'failed', failure_code: 'BUDGET_EXCEEDED' });
      expect(wireOf(fork, doc.fork_id, branchId), branchId).toMatchObject({ completed: 2, input_tokens: 246, output_tokens: 90, budget_exceeded: true });
      expect(denialsOf(fork, doc.fork_id, branchId).map((d) => d.reason), branchId).toContain('budget_exceeded');
    }
    expect(anthropic.requests()).toHaveLength(4);
  });

  it("Codex's cloud API over TLS terminated by the gateway: the upstream gets the real key, the wire the served model", async () => {
    const fork = new VendorFork(tempDir());
    const realKey = `sk-proj-REALKEY-${hex()}`;
    const upstream = await startRecordingServer((request, response) => answerResponses(request, response));
    const local = await startLocalModelServer({ scenario: { kind: 'script', turns: codexShellFix(OLLAMA) } });
    cleanups.push(() => upstream.close(), () => local.close());
    const profile = { profile_id: 'codex-cloud', runtime: 'codex', model: 'gpt-5.1-codex', local_provider: null, adapter_options: {} } as const;
    const doc = await fork.start([profile, OLLAMA_PROFILE], { OPENAI_BASE_URL: `${upstream.origin}/v1`, CODEX_API_KEY: realKey, CODEX_OSS_BASE_URL: `${local.origin}/v1` });
    const posts = upstream.requests().filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    for (const request of posts) expect(request.headers.authorization).toBe(`Bearer ${realKey}`);
    expect(wireOf(fork, doc.fork_id, 'branch-codex-cloud')).toMatchObject({ served_models: ['gpt-5.1-codex'], input_tokens: 321 * posts.length, output_tokens: 54 * posts.length });
    const compare = await fork.compare(doc.fork_id);
    expect(compare.branches.find((b) => b.branch_id === 'branch-codex-cloud')).toMatchObject({ model_proof: 'passed' });
    // Its model list request to chatgpt.com (sent with the key) was refused by route, never forwarded.
    expect(denialsOf(fork, doc.fork_id, 'branch-codex-cloud').every((d) => d.reason === 'path_not_allowed' || d.reason === 'host_not_allowed')).toBe(true);
    expect(fork.branchRun(doc.fork_id, 'branch-codex-cloud').stdout).toContain('SCRIPTED-REPLY');
  });
});

/** A Responses API answer for `POST /v1/responses`, as the scripted local provider gives (recordings codex-cloud/a1). */
function answerResponses(request: LoggedRequest, response: ServerResponse): void {
  if (request.method !== 'POST' || request.url !== '/v1/responses') return sendJson(response, 404, { error: { message: 'no route' } });
  const model = (request.body as { model?: string }).model ?? 'unknown';
  const item = { type: 'message', id: 'msg_0', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'SCRIPTED-REPLY: hello.', annotations: [] }] };
  const usage = { input_tokens: 321, input_tokens_details: { cached_tokens: 0 }, output_tokens: 54, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 375 };
  sendSse(response, [
    { event: 'response.created', data: { type: 'response.created', response: { id: 'resp_0', object: 'response', status: 'in_progress', model } } },
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
    { event: 'response.completed', data: { type: 'response.completed', response: { id: 'resp_0', object: 'response', status: 'completed', model, output: [item], usage } } },
  ]);
}
