import { describe, expect, it } from 'vitest';
import { geminiActivity } from '../../../main/runtimes/gemini/live-activity';
import { GATEWAY_INSIDE_PORT } from '../../../main/runtimes/containment/provider-egress';
import { hostCredentialDeps } from '../../../main/runtimes/credentials/runtime-credentials';
import { BUILTIN_ADAPTERS } from '../../../main/runtimes/registry';
import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import { RuntimeActivitySchema } from '../../../shared/fork/events';
import { GatewayRuleSchema } from '../../../shared/sandbox/containment-policy';
import { recordingRun } from './recorded-run';

const { gemini } = BUILTIN_ADAPTERS;
const FLASH: RuntimeProfile = { profile_id: 'gemini-a', runtime: 'gemini', model: 'gemini-2.5-flash', local_provider: null, adapter_options: {} };
const STREAM = [{ method: 'POST', path: '/v1beta/models/{model}:streamGenerateContent' }];

describe('gemini containment needs', () => {
  it('reaches the Gemini API only through the gateway, upstream at Google or the operator GOOGLE_GEMINI_BASE_URL', () => {
    const base = { kind: 'gateway', api: 'gemini-generate-content', inside: { kind: 'http', port: GATEWAY_INSIDE_PORT }, routes: STREAM, models: ['gemini-2.5-flash'] };
    expect(GatewayRuleSchema.parse(gemini.containmentNeeds.egress(FLASH, {}))).toEqual({ ...base, upstream: 'https://generativelanguage.googleapis.com' });
    expect(gemini.containmentNeeds.egress(FLASH, { GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:18090/' })).toEqual({ ...base, upstream: 'http://127.0.0.1:18090' });
    expect(gemini.containmentNeeds.egress({ ...FLASH, model: null }, {})).toMatchObject({ models: null });
    expect(() => gemini.containmentNeeds.egress(FLASH, { GOOGLE_GEMINI_BASE_URL: 'https://gw.example.test/?key=1' })).toThrow(expect.objectContaining({ code: 'EGRESS_PROVIDER_UNSUPPORTED' }));
  });

  it('gives the sandbox the gateway address and the placeholder, and its own home holding the settings it needs', () => {
    const rule = GatewayRuleSchema.parse(gemini.containmentNeeds.egress(FLASH, {}));
    expect(gemini.containmentNeeds.gatewayEnv(rule, { placeholder: 'PLACEHOLDER', caCertFile: null })).toEqual({
      GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${GATEWAY_INSIDE_PORT}`,
      GEMINI_API_KEY: 'PLACEHOLDER',
    });
    expect(gemini.containmentNeeds.homeEnv).toEqual([{ name: 'GEMINI_CLI_HOME', dir: 'gemini' }]);
    const [settings, ...others] = gemini.containmentNeeds.homeFiles ?? [];
    expect(others).toEqual([]);
    expect(settings?.path).toEqual(['gemini', '.gemini', 'settings.json']);
    expect(JSON.parse(settings?.content ?? '')).toEqual({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } });
  });

  it('hands the gateway the operator key as x-goog-api-key, from GEMINI_API_KEY only', async () => {
    const deps = hostCredentialDeps();
    expect(await gemini.credentials.locate(FLASH, { GEMINI_API_KEY: ' AIza-operator ' }, deps)).toEqual({
      grant: { kind: 'static', headers: { 'x-goog-api-key': 'AIza-operator' } },
      facts: { kind: 'env_api_key', label: 'API key from the environment (GEMINI_API_KEY)', expires_at: null, refreshable: false },
    });
    expect(await gemini.credentials.locate(FLASH, { GOOGLE_API_KEY: 'AIza-other', OPENAI_API_KEY: 'sk-x' }, deps)).toBeNull();
  });
});

describe('Gemini CLI stream-json lines as they arrive (issue 14)', () => {
  const activities = (name: string) =>
    recordingRun('gemini', name)
      .stdout.split('\n')
      .map((line) => geminiActivity(line))
      .filter((activity) => activity !== null)
      .map((activity) => RuntimeActivitySchema.parse(activity));

  it('an edit: session, the tool by name (never its parameters), its result, the usage; no message text', () => {
    expect(activities('edit')).toEqual([
      { kind: 'session', summary: 'session started' },
      { kind: 'command_started', summary: 'running write_file' },
      { kind: 'command_completed', summary: 'tool finished' },
      { kind: 'turn_completed', summary: 'run completed · 642 input, 108 output tokens' },
    ]);
  });

  it('a refused write and a provider error', () => {
    expect(activities('write_outside_repo')).toContainEqual({ kind: 'error', summary: 'a tool call was refused or failed' });
    expect(activities('err401')).toEqual([
      { kind: 'session', summary: 'session started' },
      { kind: 'turn_failed', summary: 'run failed' },
    ]);
    expect(geminiActivity('{"type":"tool_use","tool_name":"rm -rf /; echo","parameters":{}}')).toEqual({ kind: 'command_started', summary: 'running a tool' });
    expect(geminiActivity('not json')).toBeNull();
  });
});
