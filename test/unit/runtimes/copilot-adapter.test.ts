/** The Copilot adapter's gateway, credentials and session-usage lookup (its argv and parse are in the conformance case). */
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copilotAdapter } from '../../../main/runtimes/copilot/adapter';
import { lookupSessionTokens } from '../../../main/runtimes/copilot/session-usage';
import { GATEWAY_INSIDE_PORT } from '../../../main/runtimes/containment/provider-egress';
import { hostCredentialDeps } from '../../../main/runtimes/credentials/runtime-credentials';
import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import { GatewayRuleSchema } from '../../../shared/sandbox/containment-policy';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const PROFILE: RuntimeProfile = { profile_id: 'copilot-a', runtime: 'copilot', model: 'gpt-4.1-mini', local_provider: null, adapter_options: {} };
const CHAT = [{ method: 'POST', path: '/v1/chat/completions' }];
const needs = copilotAdapter.containmentNeeds;

describe('copilot containment needs', () => {
  it('reaches OpenAI, the operator COPILOT_PROVIDER_BASE_URL or OPENAI_BASE_URL only through a chat-completions gateway', () => {
    const base = { kind: 'gateway', api: 'openai-chat-completions', inside: { kind: 'http', port: GATEWAY_INSIDE_PORT }, routes: CHAT, models: ['gpt-4.1-mini'] };
    expect(GatewayRuleSchema.parse(needs.egress(PROFILE, {}))).toEqual({ ...base, upstream: 'https://api.openai.com' });
    expect(needs.egress(PROFILE, { OPENAI_BASE_URL: 'https://llm.example.test/v1/' })).toEqual({ ...base, upstream: 'https://llm.example.test' });
    expect(needs.egress(PROFILE, { COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:18090/v1', OPENAI_BASE_URL: 'https://llm.example.test/v1' })).toEqual({ ...base, upstream: 'http://127.0.0.1:18090' });
    expect(() => needs.egress(PROFILE, { COPILOT_PROVIDER_BASE_URL: 'https://user:secret@llm.example.test' })).toThrow(
      expect.objectContaining({ code: 'EGRESS_PROVIDER_UNSUPPORTED', message: expect.stringContaining('COPILOT_PROVIDER_BASE_URL') }),
    );
  });

  it('a local provider profile reaches that provider through the gateway', () => {
    const ollama = { ...PROFILE, model: 'qwen3-coder:30b', local_provider: 'ollama' as const };
    expect(needs.egress(ollama, { CODEX_OSS_PORT: '11500' })).toMatchObject({ upstream: 'http://127.0.0.1:11500', routes: CHAT, models: ['qwen3-coder:30b'] });
    expect(needs.egress({ ...ollama, local_provider: 'lmstudio' }, {})).toMatchObject({ api: 'openai-chat-completions', routes: CHAT });
  });

  it('runs offline BYOK against the gateway with the placeholder as its key, its state in the runtime home', () => {
    const rule = GatewayRuleSchema.parse(needs.egress(PROFILE, {}));
    expect(needs.gatewayEnv(rule, { placeholder: 'PLACEHOLDER', caCertFile: null })).toEqual({
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${GATEWAY_INSIDE_PORT}/v1`,
      COPILOT_PROVIDER_API_KEY: 'PLACEHOLDER',
    });
    expect(needs.homeEnv).toEqual([{ name: 'COPILOT_HOME', dir: 'copilot' }]);
  });

  it('never lets a variable that approves every tool or runs a shell command through', () => {
    expect(copilotAdapter.envAllowlist).not.toContain('COPILOT_ALLOW_ALL');
    expect(copilotAdapter.envAllowlist).not.toContain('COPILOT_PROVIDER_API_KEY_COMMAND');
  });
});

describe('copilot credentials', () => {
  it('takes COPILOT_PROVIDER_API_KEY, then OPENAI_API_KEY, as a bearer; never a GitHub token; none for a local provider', async () => {
    const deps = hostCredentialDeps();
    const locate = (env: Record<string, string>, profile: RuntimeProfile | null = null) => copilotAdapter.credentials.locate(profile, env, deps);
    expect(await locate({ COPILOT_PROVIDER_API_KEY: 'k1', OPENAI_API_KEY: 'k2' })).toMatchObject({ grant: { kind: 'static', headers: { authorization: 'Bearer k1' } } });
    expect(await locate({ OPENAI_API_KEY: 'k2' })).toMatchObject({ grant: { kind: 'static', headers: { authorization: 'Bearer k2' } }, facts: { kind: 'env_api_key' } });
    expect(await locate({ GH_TOKEN: 'ghp_x', COPILOT_GITHUB_TOKEN: 'ghp_y' })).toBeNull();
    expect(await locate({}, { ...PROFILE, local_provider: 'ollama' })).toMatchObject({ grant: { kind: 'none' } });
  });
});

describe('copilot session usage', () => {
  const SESSION = '0b4c1f4e-6a0d-4c8e-9f57-2f3a3c1d9e11';
  const usage = (input: unknown, output: unknown) => JSON.stringify({ type: 'session.usage_record', data: { usage: { model: 'm', inputTokens: input, outputTokens: output } } });

  function home(lines: readonly string[]): string {
    const dir = realpathSync(tempDir('citadel-copilot-home-'));
    mkdirSync(path.join(dir, 'session-state', SESSION), { recursive: true });
    writeFileSync(path.join(dir, 'session-state', SESSION, 'events.jsonl'), `${lines.join('\n')}\n`);
    return dir;
  }

  it('sums every usage record; one without whole counts, or none at all, makes the tokens unknown', async () => {
    expect(await lookupSessionTokens(home([usage(321, 54), '{"type":"assistant.message"}', usage(10, 5)]), SESSION)).toEqual({ input: 331, output: 59 });
    expect(await lookupSessionTokens(home([usage(321, 54), usage(-1, 5)]), SESSION)).toBeNull();
    expect(await lookupSessionTokens(home(['{"type":"assistant.message"}']), SESSION)).toBeNull();
    expect(await lookupSessionTokens(realpathSync(tempDir('citadel-copilot-empty-')), SESSION)).toBeNull();
  });

  it('refuses an events file that leads outside COPILOT_HOME', async () => {
    const outside = home([usage(321, 54)]);
    const dir = realpathSync(tempDir('citadel-copilot-home-'));
    mkdirSync(path.join(dir, 'session-state'), { recursive: true });
    symlinkSync(path.join(outside, 'session-state', SESSION), path.join(dir, 'session-state', SESSION));
    expect(await lookupSessionTokens(outside, SESSION)).toEqual({ input: 321, output: 54 });
    expect(await lookupSessionTokens(dir, SESSION)).toBeNull();
  });
});
