/** Qwen Code's adapter parts the conformance suite does not reach: containment, live activity, the session-file lookup's refusals. */
import { mkdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_INSIDE_PORT } from '../../../main/runtimes/containment/provider-egress';
import { qwenAdapter } from '../../../main/runtimes/qwen/adapter';
import { qwenActivity } from '../../../main/runtimes/qwen/parse-events';
import { lookupSessionModel, qwenProjectFolder } from '../../../main/runtimes/qwen/session-model';
import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import { GatewayRuleSchema } from '../../../shared/sandbox/containment-policy';
import { QWEN_RECORDINGS, recordedQwenRun } from './qwen-recorded';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const QWEN: RuntimeProfile = { profile_id: 'qwen-a', runtime: 'qwen', model: 'qwen3-coder-plus', local_provider: null, adapter_options: {} };
const CHAT = [{ method: 'POST', path: '/v1/chat/completions' }];
const base = { kind: 'gateway', api: 'openai-chat-completions', inside: { kind: 'http', port: GATEWAY_INSIDE_PORT }, routes: CHAT, models: ['qwen3-coder-plus'] };

describe('qwen containment needs', () => {
  it('reaches OpenAI, the operator OPENAI_BASE_URL (without its /v1) or a local provider only through the gateway', () => {
    const { egress } = qwenAdapter.containmentNeeds;
    expect(GatewayRuleSchema.parse(egress(QWEN, {}))).toEqual({ ...base, upstream: 'https://api.openai.com' });
    expect(egress(QWEN, { OPENAI_BASE_URL: 'https://dashscope.example.test/compatible-mode/v1/' })).toEqual({ ...base, upstream: 'https://dashscope.example.test/compatible-mode' });
    expect(egress({ ...QWEN, local_provider: 'ollama' }, { OPENAI_BASE_URL: 'https://ignored.example.test/v1' })).toEqual({ ...base, upstream: 'http://127.0.0.1:11434' });
    expect(egress({ ...QWEN, local_provider: 'lmstudio' }, {})).toEqual({ ...base, upstream: 'http://127.0.0.1:1234' });
    expect(egress({ ...QWEN, model: null }, {})).toMatchObject({ models: null });
    expect(() => egress(QWEN, { OPENAI_BASE_URL: 'https://user:secret@gateway.example.test/v1' })).toThrow(expect.objectContaining({ code: 'EGRESS_PROVIDER_UNSUPPORTED' }));
  });

  it('gives the sandbox the gateway address, the placeholder and the profile model, and its own QWEN_HOME', () => {
    const { egress, gatewayEnv, homeEnv } = qwenAdapter.containmentNeeds;
    const inside = { placeholder: 'PLACEHOLDER', caCertFile: null };
    const url = `http://127.0.0.1:${GATEWAY_INSIDE_PORT}/v1`;
    expect(gatewayEnv(GatewayRuleSchema.parse(egress(QWEN, {})), inside)).toEqual({ OPENAI_BASE_URL: url, OPENAI_API_KEY: 'PLACEHOLDER', OPENAI_MODEL: 'qwen3-coder-plus' });
    expect(gatewayEnv(GatewayRuleSchema.parse(egress({ ...QWEN, model: null }, {})), inside)).toEqual({ OPENAI_BASE_URL: url, OPENAI_API_KEY: 'PLACEHOLDER' });
    expect(homeEnv).toEqual([{ name: 'QWEN_HOME', dir: 'qwen' }]);
  });

  it('edits without asking only when the operating system contains the run, and never passes yolo', () => {
    expect(qwenAdapter.invocation(QWEN, 'contained').args).toEqual(['--output-format', 'stream-json', '--approval-mode', 'auto-edit', '--model', 'qwen3-coder-plus']);
    expect(qwenAdapter.invocation(QWEN).args).toEqual(['--output-format', 'stream-json', '--approval-mode', 'default', '--model', 'qwen3-coder-plus']);
    expect(qwenAdapter.invocation({ ...QWEN, adapter_options: { approval_mode: 'plan' } }, 'contained').args).toContain('plan');
    expect(() => qwenAdapter.invocation({ ...QWEN, adapter_options: { approval_mode: 'yolo' } }, 'contained')).toThrow(expect.objectContaining({ code: 'EXECUTOR_PROFILE_INVALID' }));
  });

  it('locates only the environment OPENAI_API_KEY as a bearer, and no credential for a local provider', async () => {
    const deps = { keychain: null, now: Date.now };
    expect(await qwenAdapter.credentials.locate(QWEN, { OPENAI_API_KEY: 'sk-x' }, deps)).toMatchObject({ grant: { kind: 'static', headers: { authorization: 'Bearer sk-x' } } });
    expect(await qwenAdapter.credentials.locate(QWEN, { ANTHROPIC_API_KEY: 'sk-ant' }, deps)).toBeNull();
    expect(await qwenAdapter.credentials.locate({ ...QWEN, local_provider: 'ollama' }, {}, deps)).toMatchObject({ grant: { kind: 'none' } });
  });
});

describe('qwen live activity', () => {
  it('says what the recorded edit run did, line by line, without copying its text or tool input', () => {
    const lines = recordedQwenRun('edit').stdout.trimEnd().split('\n');
    expect(lines.map(qwenActivity)).toEqual([
      { kind: 'session', summary: 'session started' },
      null,
      { kind: 'item_completed', summary: 'message from the model' },
      { kind: 'command_started', summary: 'using write file' },
      { kind: 'command_completed', summary: 'tool call finished' },
      { kind: 'item_completed', summary: 'message from the model' },
      { kind: 'turn_completed', summary: 'run completed · 642 input, 108 output tokens' },
    ]);
    expect(qwenActivity(recordedQwenRun('err401').stdout.trimEnd().split('\n').at(-1)!)).toEqual({ kind: 'turn_failed', summary: 'the run failed' });
    expect(qwenActivity('not json')).toBeNull();
  });
});

describe('qwen session-file lookup', () => {
  const SESSION = '6d86b439-3db8-4f88-a806-0ea4cb2d23f3';
  const RECORDED = path.join(QWEN_RECORDINGS, 'model_served_differs/home/.qwen/projects/-tmp-rec-lab-qwen-model-served-differs-PmWlLK-repo/chats', `${SESSION}.jsonl`);
  const WORKTREE = '/tmp/rec-lab/qwen-model_served_differs-PmWlLK/repo';

  async function home(content: (recorded: string) => string): Promise<{ qwenHome: string; chats: string }> {
    const qwenHome = await realpath(tempDir('citadel-qwen-home-'));
    const chats = path.join(qwenHome, 'projects', qwenProjectFolder(WORKTREE), 'chats');
    await mkdir(chats, { recursive: true });
    await writeFile(path.join(chats, `${SESSION}.jsonl`), content(await readFile(RECORDED, 'utf8')));
    return { qwenHome, chats };
  }

  it('reads the served model, and refuses another worktree, two served models, a symlink and a missing file', async () => {
    const { qwenHome } = await home((text) => text);
    expect(await lookupSessionModel({ qwenHome, sessionId: SESSION, worktree: WORKTREE })).toEqual({ model: 'fake-coder-1-served-by-scripted-server', warning: null });
    expect(await lookupSessionModel({ qwenHome, sessionId: '00000000-0000-4000-8000-000000000000', worktree: WORKTREE })).toEqual({ model: null, warning: 'rollout_not_found' });
    expect(await lookupSessionModel({ qwenHome, sessionId: '../x', worktree: WORKTREE })).toEqual({ model: null, warning: 'rollout_not_found' });

    const moved = await home((text) => text.replaceAll(WORKTREE, '/tmp/elsewhere'));
    expect(await lookupSessionModel({ qwenHome: moved.qwenHome, sessionId: SESSION, worktree: WORKTREE })).toEqual({ model: null, warning: 'rollout_cwd_mismatch' });

    const two = await home((text) => text.replace('"model":"fake-coder-1-served-by-scripted-server"', '"model":"another-model"'));
    expect(await lookupSessionModel({ qwenHome: two.qwenHome, sessionId: SESSION, worktree: WORKTREE })).toEqual({ model: null, warning: 'observed_model_ambiguous' });

    const linked = await realpath(tempDir('citadel-qwen-home-'));
    await mkdir(path.join(linked, 'projects', qwenProjectFolder(WORKTREE)), { recursive: true });
    await symlink(path.join(qwenHome, 'projects', qwenProjectFolder(WORKTREE), 'chats'), path.join(linked, 'projects', qwenProjectFolder(WORKTREE), 'chats'));
    expect(await lookupSessionModel({ qwenHome: linked, sessionId: SESSION, worktree: WORKTREE })).toEqual({ model: null, warning: 'rollout_unreadable' });

    expect(await lookupSessionModel({ qwenHome, sessionId: SESSION, worktree: WORKTREE }, 100)).toEqual({ model: null, warning: 'rollout_unreadable' });
  });
});
