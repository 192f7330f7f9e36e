/**
 * Model-server failures with the REAL Claude Code 2.1.328 and Codex 0.169.0 through Citadel's real
 * CLI: each becomes the exact typed failure code the adapters promise, and Claude's own long retry
 * loop is cut off by the fork's time budget, process group and all.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { branch, parseDoc } from '../support/fork-harness';
import { startAnthropicServer } from '../support/model-servers/anthropic-server';
import { startLocalModelServer } from '../support/model-servers/local-model-server';
import { codexShellFix } from './scripted-agents';
import { CLAUDE_PROFILE, groupAlive, LMSTUDIO_PROFILE, OLLAMA_PROFILE, processesInside, useVendorTempDirs, VendorFork } from './vendor-fork';

const tempDir = useVendorTempDirs();
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const CLAUDE_BASE = { ANTHROPIC_API_KEY: 'sk-ant-test-dummy', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
/**
 * Claude retries 401, 500 and refused connections 10 times over about 3 minutes
 * (recordings c1/c2/d1). The code tests switch that off through the allowlisted
 * CLAUDE_CODE_MAX_RETRIES; the budget test below keeps the retries and lets the budget end them.
 */
const NO_CLAUDE_RETRIES = { CLAUDE_CODE_MAX_RETRIES: '0' };

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function expectNoVerifier(fork: VendorFork, forkId: string, branchId: string): void {
  const { receipt } = fork.branchRun(forkId, branchId);
  expect(receipt.verifier.status, branchId).toBe('not_run');
  expect(receipt.telemetry, branchId).toMatchObject({ input_tokens: null, output_tokens: null });
}

describe('real vendor CLIs: model-server failures become typed failure codes', () => {
  it('HTTP 401 from the model server is RUNTIME_AUTH_FAILED for Claude and for Codex + Ollama', async () => {
    const fork = new VendorFork(tempDir());
    const anthropic = await startAnthropicServer({ scenario: { kind: 'error', status: 401 } });
    const local = await startLocalModelServer({ scenario: { kind: 'error', status: 401 } });
    servers.push(anthropic, local);
    const doc = await fork.start([CLAUDE_PROFILE, OLLAMA_PROFILE], { ...CLAUDE_BASE, ...NO_CLAUDE_RETRIES, ANTHROPIC_BASE_URL: anthropic.origin, CODEX_OSS_BASE_URL: `${local.origin}/v1` });
    expect(branch(doc, 'branch-claude-sonnet')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_AUTH_FAILED' });
    expect(branch(doc, 'branch-codex-ollama')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_AUTH_FAILED' });
    expect(doc.state).toBe('failed');
    for (const branchId of ['branch-claude-sonnet', 'branch-codex-ollama']) expectNoVerifier(fork, doc.fork_id, branchId);
    expect(anthropic.requests()).toHaveLength(1);
    // Codex retries a 401 itself (5 reconnects), then fails the turn.
    expect(local.requests().filter((r) => r.url === '/v1/responses').length).toBeGreaterThan(1);
  });

  it('HTTP 500 from the model server is RUNTIME_API_ERROR for Claude and for Codex + LM Studio', async () => {
    const fork = new VendorFork(tempDir());
    const anthropic = await startAnthropicServer({ scenario: { kind: 'error', status: 500 } });
    const local = await startLocalModelServer({ scenario: { kind: 'error', status: 500 } });
    servers.push(anthropic, local);
    const doc = await fork.start([CLAUDE_PROFILE, LMSTUDIO_PROFILE], { ...CLAUDE_BASE, ...NO_CLAUDE_RETRIES, ANTHROPIC_BASE_URL: anthropic.origin, CODEX_OSS_BASE_URL: `${local.origin}/v1` });
    expect(branch(doc, 'branch-claude-sonnet')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_API_ERROR' });
    expect(branch(doc, 'branch-codex-lmstudio')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_API_ERROR' });
    for (const branchId of ['branch-claude-sonnet', 'branch-codex-lmstudio']) expectNoVerifier(fork, doc.fork_id, branchId);
  });

  it('no server listening is RUNTIME_PROVIDER_UNAVAILABLE for Claude, Codex + Ollama and Codex + LM Studio', async () => {
    const fork = new VendorFork(tempDir());
    const port = await closedPort();
    const doc = await fork.start([CLAUDE_PROFILE, OLLAMA_PROFILE, LMSTUDIO_PROFILE], {
      ...CLAUDE_BASE,
      ...NO_CLAUDE_RETRIES,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
      CODEX_OSS_BASE_URL: `http://127.0.0.1:${port}/v1`,
    });
    for (const branchId of ['branch-claude-sonnet', 'branch-codex-ollama', 'branch-codex-lmstudio']) {
      expect(branch(doc, branchId), branchId).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_PROVIDER_UNAVAILABLE' });
      expectNoVerifier(fork, doc.fork_id, branchId);
    }
  });

  it('default endpoints: no Claude credentials is refused before anything exists (contained) or RUNTIME_AUTH_FAILED (runtime-only); an Ollama too old for Codex and no LM Studio are RUNTIME_PROVIDER_UNAVAILABLE', async () => {
    const fork = new VendorFork(tempDir());
    // Ollama's default port (free in this private network namespace); LM Studio's default 1234 stays empty.
    const oldOllama = await startLocalModelServer({ scenario: { kind: 'script', turns: [{ text: 'unreachable' }] }, ollamaVersion: '0.12.0', port: 11434 });
    servers.push(oldOllama);
    // Contained, the gateway needs Claude's credential on the host: none, so fork start refuses and says what to do.
    const executors = path.join(fork.base, 'no-credential.json');
    writeFileSync(executors, JSON.stringify({ schema_version: 1, executors: [CLAUDE_PROFILE, OLLAMA_PROFILE] }));
    const refused = await fork.cli(['fork', 'start', 'Fix the sum function', '--repo', fork.repo, '--executors', executors, '--workflow', fork.harness.workflowFile, '--json']);
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'RUNTIME_AUTH_MISSING', message: expect.stringMatching(/ANTHROPIC_API_KEY|claude \/login/) } });
    // No ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL or CODEX_OSS_BASE_URL: every runtime uses its defaults, and reads its own login.
    const doc = await fork.start([CLAUDE_PROFILE, OLLAMA_PROFILE, LMSTUDIO_PROFILE], { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }, ['--containment', 'runtime-only']);
    expect(branch(doc, 'branch-claude-sonnet')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_AUTH_FAILED' });
    expect(JSON.parse(fork.branchRun(doc.fork_id, 'branch-claude-sonnet').stdout)).toMatchObject({ is_error: true, result: 'Not logged in · Please run /login' });
    expect(branch(doc, 'branch-codex-ollama')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_PROVIDER_UNAVAILABLE' });
    expect(oldOllama.requests().map((r) => `${r.method} ${r.url}`)).toContain('GET /api/version');
    expect(oldOllama.requests().filter((r) => r.url === '/v1/responses')).toEqual([]);
    expect(branch(doc, 'branch-codex-lmstudio')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_PROVIDER_UNAVAILABLE' });
  });

  it("Claude's own retry loop on 500 is cut off by the fork budget: BUDGET_EXCEEDED, its process group gone", async () => {
    const fork = new VendorFork(tempDir());
    const anthropic = await startAnthropicServer({ scenario: { kind: 'error', status: 500 } });
    const local = await startLocalModelServer({ scenario: { kind: 'script', turns: codexShellFix('branch-codex-ollama') } });
    servers.push(anthropic, local);
    const started = Date.now();
    const doc = await fork.start([CLAUDE_PROFILE, OLLAMA_PROFILE], { ...CLAUDE_BASE, ANTHROPIC_BASE_URL: anthropic.origin, CODEX_OSS_BASE_URL: `${local.origin}/v1` }, ['--budget-seconds', '12']);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(branch(doc, 'branch-claude-sonnet')).toMatchObject({ state: 'failed', failure_code: 'BUDGET_EXCEEDED' });
    expect(branch(doc, 'branch-codex-ollama')).toMatchObject({ state: 'passed', failure_code: null });

    const claude = fork.branchRun(doc.fork_id, 'branch-claude-sonnet');
    expect(claude.runStatus.timed_out).toBe(true);
    expect(claude.receipt.exit.timed_out).toBe(true);
    // Claude really was retrying (more than one attempt) and was stopped long before its 11th.
    const attempts = anthropic.requests().length;
    expect(attempts).toBeGreaterThan(1);
    expect(attempts).toBeLessThan(11);
    expect(claude.runStatus.runtime_pgid).not.toBeNull();
    expect(groupAlive(claude.runStatus.runtime_pgid ?? 0)).toBe(false);
    expect(processesInside(fork.worktree(doc.fork_id, 'branch-claude-sonnet'))).toEqual([]);
    // Nothing keeps calling the model server after the fork returned.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(anthropic.requests()).toHaveLength(attempts);
  });

  it('fork stop ends a real Claude run in its retry loop: STOPPED_BY_OPERATOR, its process group gone, no request after', async () => {
    const fork = new VendorFork(tempDir());
    const anthropic = await startAnthropicServer({ scenario: { kind: 'error', status: 500 } });
    const local = await startLocalModelServer({ scenario: { kind: 'script', turns: codexShellFix('branch-codex-ollama') } });
    servers.push(anthropic, local);
    const env = { ...CLAUDE_BASE, ANTHROPIC_BASE_URL: anthropic.origin, CODEX_OSS_BASE_URL: `${local.origin}/v1` };
    const doc = await fork.start([CLAUDE_PROFILE, OLLAMA_PROFILE], env, ['--detach']);
    // Claude keeps retrying the 500 for minutes; wait until it has really called the server.
    for (let waited = 0; anthropic.requests().length === 0; waited += 200) {
      if (waited > 30_000) throw new Error('Claude never called the scripted server');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const stop = await fork.cli(['fork', 'stop', doc.fork_id, 'branch-claude-sonnet', '--json'], env);
    expect(stop.code, stop.stderr).toBe(0);
    const attempts = anthropic.requests().length;

    const resumed = await fork.cli(['fork', 'resume', doc.fork_id, '--json'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = parseDoc(resumed);
    expect(branch(after, 'branch-claude-sonnet')).toMatchObject({ state: 'failed', failure_code: 'STOPPED_BY_OPERATOR' });
    expect(branch(after, 'branch-codex-ollama')).toMatchObject({ state: 'passed' });
    const claude = fork.branchRun(doc.fork_id, 'branch-claude-sonnet');
    expect(claude.receipt.exit).toMatchObject({ stopped: true });
    expect(groupAlive(claude.runStatus.runtime_pgid ?? 0)).toBe(false);
    expect(processesInside(fork.worktree(doc.fork_id, 'branch-claude-sonnet'))).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(anthropic.requests()).toHaveLength(attempts);
  });
});
