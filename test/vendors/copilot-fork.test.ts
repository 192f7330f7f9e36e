/**
 * Issue 31: a whole contained fork of the REAL GitHub Copilot CLI 1.0.102 (offline BYOK) through
 * Citadel's real CLI, against a scripted OpenAI chat-completions server on loopback reached only
 * through the provider gateway. The scripted model edits src/sum.js with Copilot's own `edit` tool in
 * the directory Copilot names as its cwd; the verifier judges the result. Copilot's output names only
 * the requested model, so the model proof is the wire's: the gateway saw what the server served.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { branch, BUGGY_SUM, FIXED_SUM, parseDoc } from '../support/fork-harness';
import { startRecordingServer, type LoggedRequest, type RecordingServer } from '../support/model-servers/recording-server';
import { useVendorTempDirs, VendorFork } from './vendor-fork';

const tempDir = useVendorTempDirs();
const servers: RecordingServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * A fork needs two profiles: two models of one runtime, each proven by its own branch's wire. Copilot
 * picks its tools by model id: for gpt-4.1-mini it offers a freeform `custom` tool instead of
 * `edit`/`create` (measured), so these are ids under which it offers `edit`.
 */
const PROFILES = [
  { profile_id: 'copilot-qwen', runtime: 'copilot', model: 'qwen3-coder:30b', local_provider: null, adapter_options: {} },
  { profile_id: 'copilot-full', runtime: 'copilot', model: 'gpt-4.1', local_provider: null, adapter_options: {} },
] as const;
const USAGE = { prompt_tokens: 321, completion_tokens: 54, total_tokens: 375 };

interface ChatBody {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages: { role: string; content: unknown }[];
  tools?: { type: string; function?: { name: string }; name?: string }[];
}

/** Turn 1: Copilot's `edit` on `<its cwd>/src/sum.js`; once a tool result is back: a closing message. Streamed, usage last. */
function scriptedCopilotModel(request: LoggedRequest, response: ServerResponse): void {
  const body = request.body as ChatBody;
  const system = JSON.stringify(body.messages[0]?.content ?? '');
  const cwd = /Current working directory: ([^\s\\]+)/.exec(system)?.[1];
  const toolDone = body.messages.some((m) => m.role === 'tool');
  const offersEdit = body.tools?.some((t) => t.function?.name === 'edit') === true;
  const id = `chatcmpl-scripted-${Date.now()}`;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model, choices, ...extra })}\n\n`;
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (!toolDone && offersEdit && cwd !== undefined) {
    const args = { path: path.join(cwd, 'src', 'sum.js'), old_str: 'return a - b;', new_str: 'return a + b;' };
    response.write(chunk([{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_scripted_1', type: 'function', function: { name: 'edit', arguments: JSON.stringify(args) } }] }, finish_reason: null }]));
    response.write(chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]));
  } else {
    response.write(chunk([{ index: 0, delta: { role: 'assistant', content: 'Fixed sum (scripted).' }, finish_reason: null }]));
    response.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
  }
  response.write(chunk([], { usage: USAGE }));
  response.end('data: [DONE]\n\n');
}

describe('the real Copilot CLI through citadel fork start', () => {
  it('fixes its own worktree contained, reaching its scripted provider only through the gateway; the verifier passes it and the wire proves its model', async () => {
    const fork = new VendorFork(tempDir());
    const server = await startRecordingServer(scriptedCopilotModel);
    servers.push(server);
    const executors = path.join(fork.base, 'executors.json');
    writeFileSync(executors, JSON.stringify({ schema_version: 2, executors: PROFILES }));
    const env = { COPILOT_PROVIDER_BASE_URL: `${server.origin}/v1`, COPILOT_PROVIDER_API_KEY: 'sk-copilot-test-dummy' };
    const run = await fork.cli(['fork', 'start', 'Fix the sum function', '--repo', fork.repo, '--executors', executors, '--workflow', fork.harness.workflowFile, '--json'], env);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const doc = parseDoc(run);
    const id = doc.fork_id;
    const logs = PROFILES.map((p) => `${p.profile_id}:\n${readFileSync(fork.harness.attemptFile(id, `branch-${p.profile_id}`, 'stdout.log'), 'utf8').slice(-3000)}\n${readFileSync(fork.harness.attemptFile(id, `branch-${p.profile_id}`, 'stderr.log'), 'utf8').slice(-3000)}`).join('\n');
    expect(doc.state, `${JSON.stringify(doc.branches)}\n${logs}`).toBe('ready');

    for (const profile of PROFILES) {
      const branchId = `branch-${profile.profile_id}`;
      const { receipt, stdout } = fork.branchRun(id, branchId);
      expect(branch(doc, branchId), stdout).toMatchObject({ state: 'passed', failure_code: null });

      // The edit landed in the branch's own worktree and its result commit, not in the repository.
      const tree = fork.worktree(id, branchId);
      expect(readFileSync(path.join(tree, 'src', 'sum.js'), 'utf8')).toBe(FIXED_SUM);
      expect(fork.git(tree, 'show', `${receipt.result_commit}:src/sum.js`) + '\n').toBe(FIXED_SUM);
      expect(receipt.verifier.steps.find((s) => s.id === 'workflow_verifier'), branchId).toMatchObject({ status: 'passed', exit_code: 0 });
      expect(receipt.containment).toMatchObject({ mode: 'contained', backend: 'bubblewrap' });

      // Copilot's own stdout names only the requested model: the telemetry claims none; its session state has the tokens.
      expect(stdout).toContain(`"model":"${profile.model}"`);
      expect(receipt.telemetry, branchId).toMatchObject({ observed_model: null, observed_model_source: null, input_tokens: 642, output_tokens: 108 });
      const wire = (receipt as unknown as { wire: { requests: number; served_models: string[]; input_tokens: number; output_tokens: number } }).wire;
      expect(wire, branchId).toMatchObject({ requests: 2, served_models: [profile.model], input_tokens: 642, output_tokens: 108 });
    }
    expect(readFileSync(path.join(fork.repo, 'src', 'sum.js'), 'utf8')).toBe(BUGGY_SUM);

    // What reached the server came through the gateway: the operator's key, never the placeholder; each profile's model; usage asked for.
    const requests = server.requests();
    expect(requests.map((r) => (r.body as ChatBody).model).sort()).toEqual(['gpt-4.1', 'gpt-4.1', 'qwen3-coder:30b', 'qwen3-coder:30b']);
    for (const request of requests) {
      expect(`${request.method} ${request.url}`).toBe('POST /v1/chat/completions');
      expect(request.headers.authorization).toBe('Bearer sk-copilot-test-dummy');
      expect(request.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    }

    const compare = await fork.compare(id);
    expect(compare.outcome).toBe('tie');
    for (const entry of compare.branches) expect(entry, entry.branch_id).toMatchObject({ receipt_verified: true, verifier_status: 'passed', model_proof: 'passed' });
  });
});
