/** OpenCode's adapter beyond the shared conformance suite: contained argv, its gateway and config, live activity. */
import { describe, expect, it } from 'vitest';
import { runtimeTemplate } from '../../../main/orchestrator/branch-containment';
import { GATEWAY_INSIDE_PORT } from '../../../main/runtimes/containment/provider-egress';
import { opencodeAdapter } from '../../../main/runtimes/opencode/adapter';
import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import { GatewayRuleSchema } from '../../../shared/sandbox/containment-policy';
import { recordingRun } from './recorded-run';

const OPENAI: RuntimeProfile = { profile_id: 'oc-a', runtime: 'opencode', model: 'gpt-5.1', local_provider: null, adapter_options: {} };
const OLLAMA: RuntimeProfile = { ...OPENAI, profile_id: 'oc-o', model: 'qwen3-coder:30b', local_provider: 'ollama' };
const LMSTUDIO: RuntimeProfile = { ...OLLAMA, profile_id: 'oc-l', local_provider: 'lmstudio' };
const CHAT = [{ method: 'POST', path: '/v1/chat/completions' }];
const base = { kind: 'gateway', api: 'openai-chat-completions', inside: { kind: 'http', port: GATEWAY_INSIDE_PORT }, routes: CHAT } as const;

describe('opencode invocation', () => {
  it('contained, names the model under the gateway provider of Citadel’s config, for every provider', () => {
    for (const profile of [OPENAI, OLLAMA, LMSTUDIO]) {
      expect(opencodeAdapter.invocation(profile, 'contained')).toEqual({ executable: 'opencode', args: ['run', '--format', 'json', '-m', `citadel/${profile.model}`] });
    }
  });

  it('runtime-only, names it under the operator’s provider; never a bypass flag', () => {
    expect(opencodeAdapter.invocation(OLLAMA, 'runtime-only').args).toEqual(['run', '--format', 'json', '-m', 'ollama/qwen3-coder:30b']);
    for (const profile of [OPENAI, OLLAMA, LMSTUDIO, { ...OPENAI, model: null }]) {
      for (const mode of ['contained', 'runtime-only'] as const) {
        const { args } = opencodeAdapter.invocation(profile, mode);
        for (const flag of ['--auto', '--yolo', '--dangerously-skip-permissions']) expect(args).not.toContain(flag);
      }
    }
  });
});

describe('opencode containment needs', () => {
  it('reaches OpenAI (or the operator OPENAI_BASE_URL) and local providers only through a chat-completions gateway, for the profile’s model', () => {
    expect(GatewayRuleSchema.parse(opencodeAdapter.containmentNeeds.egress(OPENAI, {}))).toEqual({ ...base, upstream: 'https://api.openai.com', models: ['gpt-5.1'] });
    expect(opencodeAdapter.containmentNeeds.egress(OPENAI, { OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1/' })).toMatchObject({ upstream: 'http://127.0.0.1:9999' });
    expect(opencodeAdapter.containmentNeeds.egress(OLLAMA, {})).toEqual({ ...base, upstream: 'http://127.0.0.1:11434', models: ['qwen3-coder:30b'] });
    expect(opencodeAdapter.containmentNeeds.egress(LMSTUDIO, { CODEX_OSS_PORT: '5000' })).toEqual({ ...base, upstream: 'http://127.0.0.1:5000', models: ['qwen3-coder:30b'] });
  });

  it('refuses a contained profile without a model before anything exists', () => {
    expect(() => opencodeAdapter.containmentNeeds.egress({ ...OPENAI, model: null }, {})).toThrow(expect.objectContaining({ code: 'EGRESS_PROVIDER_UNSUPPORTED' }));
  });

  it('gives OpenCode a config whose only provider is the gateway with the placeholder key; it grants nothing and asks again about writes outside the project', () => {
    const rule = GatewayRuleSchema.parse(opencodeAdapter.containmentNeeds.egress(OLLAMA, {}));
    const env = opencodeAdapter.containmentNeeds.gatewayEnv(rule, { placeholder: 'PLACEHOLDER', caCertFile: null });
    expect(Object.keys(env)).toEqual(['OPENCODE_CONFIG_CONTENT']);
    expect(JSON.parse(env.OPENCODE_CONFIG_CONTENT!)).toEqual({
      provider: {
        citadel: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Citadel provider gateway',
          options: { baseURL: `http://127.0.0.1:${GATEWAY_INSIDE_PORT}/v1`, apiKey: 'PLACEHOLDER' },
          models: { 'qwen3-coder:30b': { name: 'qwen3-coder:30b' } },
        },
      },
      model: 'citadel/qwen3-coder:30b',
      permission: { external_directory: 'ask' },
      autoupdate: false,
      share: 'disabled',
    });
    expect(opencodeAdapter.containmentNeeds.homeEnv).toEqual([]);
  });

  it('a contained run’s environment carries the config and no key of the operator', () => {
    const names = runtimeTemplate('bubblewrap', opencodeAdapter, OPENAI, { HOME: '/home/op', PATH: '/usr/bin', OPENAI_API_KEY: 'sk-op', OPENCODE_CONFIG_CONTENT: '{"permission":"allow"}' }).env_names;
    expect(names).toContain('OPENCODE_CONFIG_CONTENT');
    expect(names).not.toContain('OPENAI_API_KEY');
  });
});

describe('opencode credentials', () => {
  it('OPENAI_API_KEY as a bearer for OpenAI; none for a local provider', async () => {
    const deps = { keychain: null, now: Date.now };
    expect(await opencodeAdapter.credentials.locate(OPENAI, { OPENAI_API_KEY: 'sk-op' }, deps)).toMatchObject({ grant: { kind: 'static', headers: { authorization: 'Bearer sk-op' } } });
    expect(await opencodeAdapter.credentials.locate(OPENAI, {}, deps)).toBeNull();
    expect(await opencodeAdapter.credentials.locate(OLLAMA, {}, deps)).toMatchObject({ grant: { kind: 'none' } });
  });
});

describe('opencode live activity', () => {
  const activity = (name: string) => recordingRun('opencode', name).stdout.trimEnd().split('\n').map((line) => opencodeAdapter.liveActivity!(line));

  it('shows steps, messages and tool calls by name, never their content', () => {
    expect(activity('edit')).toEqual([
      { kind: 'turn_started', summary: 'step started' },
      { kind: 'item_completed', summary: 'message from the model' },
      { kind: 'command_completed', summary: 'ran write' },
      { kind: 'turn_completed', summary: 'step finished · 321 input, 54 output tokens' },
      { kind: 'turn_started', summary: 'step started' },
      { kind: 'item_completed', summary: 'message from the model' },
      { kind: 'turn_completed', summary: 'step finished · 321 input, 54 output tokens' },
    ]);
    expect(activity('write_outside_repo')[2]).toEqual({ kind: 'error', summary: 'write refused: permission rejected' });
    expect(activity('err401')).toEqual([{ kind: 'error', summary: 'the provider answered HTTP 401' }]);
    expect(opencodeAdapter.liveActivity!('not json')).toBeNull();
    expect(opencodeAdapter.liveActivity!('{"type":"something_new"}')).toBeNull();
  });
});
