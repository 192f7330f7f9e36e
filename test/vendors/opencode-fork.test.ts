/**
 * A whole contained fork of the REAL OpenCode 1.18.33 through Citadel's real CLI, against the
 * scripted OpenAI-compatible server of the recordings (test/vendors/recording) on loopback: OpenCode
 * reaches it only through the provider gateway, as the one provider of the config Citadel writes;
 * its `write` tool fixes the branch's own worktree, the verifier judges the result, the receipt
 * verifies and the model proof comes from the gateway's wire (OpenCode never prints its model).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { digestOf } from '../../shared/digest';
import { branch, BUGGY_SUM, FIXED_SUM, parseDoc } from '../support/fork-harness';
import { startAnthropicServer } from '../support/model-servers/anthropic-server';
import { startScriptedServer } from './scripted-model-server.mjs';
import { CLAUDE_FIX } from './scripted-agents';
import { CLAUDE_PROFILE, useVendorTempDirs, VendorFork } from './vendor-fork';

const tempDir = useVendorTempDirs();
const servers: { close(): unknown }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const OPENCODE_PROFILE = { profile_id: 'opencode-scripted', runtime: 'opencode', model: 'fake-coder-1', local_provider: null, adapter_options: {} } as const;

interface LoggedRequest {
  readonly n: number;
  readonly method?: string;
  readonly url?: string;
  readonly body?: { model?: string; tools?: unknown[] } | null;
}

describe('real OpenCode through citadel fork start', () => {
  it('fixes its own worktree inside the sandbox through the chat-completions gateway; verifier, receipt and wire model proof hold', async () => {
    const fork = new VendorFork(tempDir());
    const logFile = path.join(mkdtempSync(path.join(fork.base, 'server-')), 'server.jsonl');
    // One call of OpenCode's own write tool, relative to the project (OpenCode resolves it there), then a final message.
    const server = await startScriptedServer(0, { scenario: 'edit', logFile, toolCall: { name: 'write', args: { filePath: 'src/sum.js', content: FIXED_SUM } } });
    servers.push({ close: () => server.closeAll() });
    const anthropic = await startAnthropicServer({ scenario: { kind: 'script', turns: CLAUDE_FIX } });
    servers.push(anthropic);
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');

    // Schema 2: an executor file naming OpenCode (VendorFork.start writes schema 1, Claude and Codex only).
    const executors = path.join(fork.base, 'executors.json');
    writeFileSync(executors, JSON.stringify({ schema_version: 2, executors: [OPENCODE_PROFILE, CLAUDE_PROFILE] }));
    const env = {
      OPENAI_BASE_URL: `http://127.0.0.1:${address.port}/v1`,
      OPENAI_API_KEY: 'sk-openai-test-dummy',
      ANTHROPIC_BASE_URL: anthropic.origin,
      ANTHROPIC_API_KEY: 'sk-ant-test-dummy',
    };
    const started = await fork.cli(['fork', 'start', 'Fix the sum function', '--repo', fork.repo, '--executors', executors, '--workflow', fork.harness.workflowFile, '--json'], env);
    expect(started.code, started.stdout + started.stderr).toBe(0);
    const doc = parseDoc(started);
    const id = doc.fork_id;
    const branchId = 'branch-opencode-scripted';
    expect(branch(doc, branchId)).toMatchObject({ state: 'passed', failure_code: null });
    expect(branch(doc, 'branch-claude-sonnet')).toMatchObject({ state: 'passed', failure_code: null });
    expect(doc.state).toBe('ready');

    // The real CLI accepted exactly the canonical argv that `executors validate` prints for a contained fork.
    const validated = await fork.cli(['executors', 'validate', path.join(fork.base, 'executors.json'), '--json']);
    const profile = (JSON.parse(validated.stdout) as { profiles: { branch_id: string; argv: string[] }[] }).profiles.find((p) => p.branch_id === branchId);
    expect(profile?.argv).toEqual(['opencode', 'run', '--format', 'json', '-m', 'citadel/fake-coder-1']);
    const run = fork.branchRun(id, branchId);
    expect(run.receipt.argv_digest).toBe(digestOf(profile!.argv));

    // The edit landed in the branch's worktree and result commit only.
    const tree = fork.worktree(id, branchId);
    expect(readFileSync(path.join(tree, 'src', 'sum.js'), 'utf8')).toBe(FIXED_SUM);
    expect(readFileSync(path.join(fork.repo, 'src', 'sum.js'), 'utf8')).toBe(BUGGY_SUM);
    expect(fork.git(tree, 'show', `${run.receipt.result_commit}:src/sum.js`) + '\n').toBe(FIXED_SUM);
    expect(run.receipt.verifier.steps.find((s) => s.id === 'workflow_verifier')).toMatchObject({ status: 'passed', exit_code: 0 });
    expect(run.receipt.containment).toMatchObject({ mode: 'contained' });
    // The runtime's own output: two steps of the server's 321/54 tokens, and no model.
    expect(run.receipt.telemetry).toMatchObject({ observed_model: null, observed_model_source: null, input_tokens: 642, output_tokens: 108 });
    // The sandbox's environment: Citadel's config for OpenCode, never the operator's key.
    const contract = fork.harness.readJson<{ containment: { runtimes: Record<string, { env_names: string[] }> } }>(path.join(fork.harness.forkDir(id), 'contract.json'));
    expect(contract.containment.runtimes[branchId]?.env_names).toContain('OPENCODE_CONFIG_CONTENT');
    expect(contract.containment.runtimes[branchId]?.env_names).not.toContain('OPENAI_API_KEY');

    // Everything the server saw came through the gateway: the title request and two agent requests, all for the profile's model.
    const requests = readFileSync(logFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedRequest).filter((entry) => entry.method !== undefined);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(Array(requests.length).fill('POST /v1/chat/completions'));
    expect(requests.length).toBeGreaterThanOrEqual(3);
    expect(new Set(requests.map((r) => r.body?.model))).toEqual(new Set(['fake-coder-1']));

    const compared = await fork.compare(id);
    // Both fixed the bug, so the comparison has two verified, comparable results to weigh.
    expect(compared.branches.map((b) => [b.branch_id, b.comparable])).toEqual([
      ['branch-claude-sonnet', true],
      [branchId, true],
    ]);
    expect(compared.branches.find((b) => b.branch_id === branchId)).toMatchObject({ receipt_verified: true, verifier_status: 'passed', model_proof: 'passed' });
  });

  it('a repository opencode.json granting every permission does not let it write outside the project: Citadel’s config asks again, so the write is rejected', async () => {
    const fork = new VendorFork(tempDir());
    // The repository under test grants OpenCode everything (measured: without Citadel's config, run then writes outside the project with no flag).
    writeFileSync(path.join(fork.repo, 'opencode.json'), JSON.stringify({ permission: { '*': 'allow', external_directory: 'allow' } }));
    fork.git(fork.repo, 'add', 'opencode.json');
    fork.git(fork.repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'grant opencode everything');
    const target = path.join(fork.outside, 'escaped.txt');
    const logFile = path.join(mkdtempSync(path.join(fork.base, 'server-')), 'server.jsonl');
    const server = await startScriptedServer(0, { scenario: 'edit', logFile, toolCall: { name: 'write', args: { filePath: target, content: 'escaped\n' } } });
    servers.push({ close: () => server.closeAll() });
    const anthropic = await startAnthropicServer({ scenario: { kind: 'script', turns: CLAUDE_FIX } });
    servers.push(anthropic);
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');

    const executors = path.join(fork.base, 'executors.json');
    writeFileSync(executors, JSON.stringify({ schema_version: 2, executors: [OPENCODE_PROFILE, CLAUDE_PROFILE] }));
    const env = { OPENAI_BASE_URL: `http://127.0.0.1:${address.port}/v1`, OPENAI_API_KEY: 'sk-openai-test-dummy', ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'sk-ant-test-dummy' };
    const started = await fork.cli(['fork', 'start', 'Fix the sum function', '--repo', fork.repo, '--executors', executors, '--workflow', fork.harness.workflowFile, '--json'], env);
    expect(started.code, started.stdout + started.stderr).toBe(0);
    const doc = parseDoc(started);
    const branchId = 'branch-opencode-scripted';
    // It did not fix the bug, so the verifier fails it; the write was rejected by OpenCode itself, before the sandbox had to refuse it.
    expect(branch(doc, branchId)).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });
    expect(existsSync(target)).toBe(false);
    const tool = fork
      .branchRun(doc.fork_id, branchId)
      .stdout.split('\n')
      .map((line) => (line.trim() === '' ? null : (JSON.parse(line) as { type: string; part?: { tool?: string; state?: { status?: string; error?: string } } })))
      .find((event) => event?.type === 'tool_use');
    expect(tool?.part).toMatchObject({ tool: 'write', state: { status: 'error', error: 'The user rejected permission to use this specific tool call.' } });
  });
});
