/**
 * A whole fork through Citadel's real CLI with the REAL Qwen Code 0.24.4 as the executor, against a
 * scripted chat-completions server on loopback (the suite runs in a loopback-only network namespace):
 * contained, Qwen Code reaches the server only through the provider gateway, which swaps the
 * placeholder for the operator's key; its `write_file` calls fix the branch's own worktree; the
 * verifier judges it; the receipt verifies and carries the served model from Qwen Code's session file.
 * A profile that would bypass approvals is refused before any fork exists.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { branch, BUGGY_SUM, FIXED_SUM, parseDoc } from '../support/fork-harness';
import type { RecordingServer } from '../support/model-servers/recording-server';
import { mainAgentRequests, QWEN_USAGE, startQwenChatServer } from './qwen-chat-server';
import { notesFor } from './scripted-agents';
import { useVendorTempDirs, VendorFork } from './vendor-fork';

const tempDir = useVendorTempDirs();
const servers: RecordingServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const OPERATOR_KEY = 'sk-operator-not-a-secret';
const QWEN_PROFILE = { profile_id: 'qwen-coder', runtime: 'qwen', model: 'qwen3-coder-plus', local_provider: null, adapter_options: {} } as const;
const BRANCH = 'branch-qwen-coder';
/** Qwen Code's plan mode ("analyze only") offers no write tool: the same scripted model cannot fix anything there. */
const PLAN_PROFILE = { ...QWEN_PROFILE, profile_id: 'qwen-plan', adapter_options: { approval_mode: 'plan' } } as const;
const PLAN_BRANCH = 'branch-qwen-plan';

async function start(fork: VendorFork, profiles: readonly object[], env: Record<string, string>) {
  const executors = path.join(fork.base, 'executors.json');
  writeFileSync(executors, JSON.stringify({ schema_version: 2, executors: profiles }));
  return fork.cli(['fork', 'start', 'Fix the sum function', '--repo', fork.repo, '--executors', executors, '--workflow', fork.harness.workflowFile, '--json'], env);
}

describe('real Qwen Code through citadel fork start', () => {
  it('fixes its own worktree inside the sandbox through the gateway; verifier, receipt and model proof hold', async () => {
    const fork = new VendorFork(tempDir());
    const server = await startQwenChatServer([
      { tool: 'read_file', path: 'src/sum.js' },
      { tool: 'write_file', path: 'src/sum.js', content: FIXED_SUM },
      { tool: 'write_file', path: 'NOTES.md', content: notesFor(BRANCH) },
    ]);
    servers.push(server);
    const run = await start(fork, [QWEN_PROFILE, PLAN_PROFILE], { OPENAI_BASE_URL: `${server.origin}/v1`, OPENAI_API_KEY: OPERATOR_KEY });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const doc = parseDoc(run);
    expect(branch(doc, BRANCH)).toMatchObject({ state: 'passed', failure_code: null });
    expect(branch(doc, PLAN_BRANCH)).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });
    expect(readFileSync(path.join(fork.worktree(doc.fork_id, PLAN_BRANCH), 'src', 'sum.js'), 'utf8')).toBe(BUGGY_SUM);
    expect(doc.state).toBe('ready');

    // The edits landed in the branch's worktree and Citadel's result commit, not in the parent repository.
    const tree = fork.worktree(doc.fork_id, BRANCH);
    expect(readFileSync(path.join(tree, 'src', 'sum.js'), 'utf8')).toBe(FIXED_SUM);
    expect(readFileSync(path.join(tree, 'NOTES.md'), 'utf8')).toBe(notesFor(BRANCH));
    expect(readFileSync(path.join(fork.repo, 'src', 'sum.js'), 'utf8')).toBe(BUGGY_SUM);
    expect(fork.git(fork.repo, 'status', '--porcelain')).toBe('');
    const { receipt, stdout } = fork.branchRun(doc.fork_id, BRANCH);
    expect(receipt.result_commit).toBe(fork.git(tree, 'rev-parse', 'HEAD'));
    expect(receipt.verifier.steps.map((s) => `${s.id}:${s.status}`)).toEqual(['result_symlinks:passed', 'protected_paths:passed', 'git_diff_check:passed', 'workflow_verifier:passed']);
    expect(receipt.containment).toMatchObject({ mode: 'contained', backend: 'bubblewrap' });

    // Every request came through the gateway: the server saw the operator's key, never the sandbox's placeholder.
    for (const request of server.requests()) expect(request.headers.authorization).toBe(`Bearer ${OPERATOR_KEY}`);
    const requests = server.requests().filter((r) => JSON.stringify(r.body).includes(tree));
    // read_file, two write_file turns and the final answer.
    expect(mainAgentRequests(requests)).toHaveLength(4);
    // Qwen Code's RUM telemetry has no route through the gateway.
    expect(existsSync(fork.harness.attemptFile(doc.fork_id, BRANCH, 'egress-denials.jsonl')) ? readFileSync(fork.harness.attemptFile(doc.fork_id, BRANCH, 'egress-denials.jsonl'), 'utf8') : '').not.toContain('/v1/chat/completions');

    // The model is the one in the provider's answers, read from the session file under the attempt's own QWEN_HOME; stdout only repeats the request.
    expect(receipt.telemetry).toMatchObject({
      observed_model: 'qwen3-coder-plus',
      observed_model_source: 'qwen_session_api_response',
      input_tokens: QWEN_USAGE.input * requests.length,
      output_tokens: QWEN_USAGE.output * requests.length,
    });
    const sessionId = /"session_id":"([0-9a-f-]{36})"/.exec(stdout)?.[1];
    const projects = path.join(fork.runtimeHome(doc.fork_id, BRANCH), 'qwen', 'projects');
    expect(readdirSync(projects, { recursive: true, encoding: 'utf8' }).some((file) => file.endsWith(`${sessionId}.jsonl`))).toBe(true);

    const compared = await fork.compare(doc.fork_id);
    expect(compared.branches.find((b) => b.branch_id === BRANCH)).toMatchObject({ receipt_verified: true, verifier_status: 'passed', model_proof: 'passed' });
    expect(compared.branches.find((b) => b.branch_id === PLAN_BRANCH)).toMatchObject({ receipt_verified: true, verifier_status: 'failed' });
  });

  it('refuses a yolo profile before any fork exists', async () => {
    const fork = new VendorFork(tempDir());
    const run = await start(fork, [PLAN_PROFILE, { ...QWEN_PROFILE, adapter_options: { approval_mode: 'yolo' } }], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: OPERATOR_KEY });
    expect(run.code).not.toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'EXECUTOR_FILE_INVALID' } });
    expect(existsSync(path.join(fork.harness.root, 'forks')) ? readdirSync(path.join(fork.harness.root, 'forks')) : []).toEqual([]);
  });
});
