import { describe, expect, it } from 'vitest';
import { BUILTIN_ADAPTERS } from '../../../main/runtimes/registry';
import { GATEWAY_INSIDE_PORT } from '../../../main/runtimes/containment/provider-egress';
import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import { GatewayRuleSchema, type GatewayRule } from '../../../shared/sandbox/containment-policy';

const { claude, codex } = BUILTIN_ADAPTERS;
const CLAUDE: RuntimeProfile = { profile_id: 'claude-a', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: {} };
const CODEX: RuntimeProfile = { profile_id: 'codex-a', runtime: 'codex', model: null, local_provider: null, adapter_options: {} };
const OLLAMA: RuntimeProfile = { ...CODEX, profile_id: 'codex-o', model: 'qwen3-coder:30b', local_provider: 'ollama' };
const LMSTUDIO: RuntimeProfile = { ...OLLAMA, profile_id: 'codex-l', local_provider: 'lmstudio' };
const HTTP_INSIDE = { kind: 'http', port: GATEWAY_INSIDE_PORT } as const;
// What the recordings show each runtime asking of its provider, and nothing else (no model pull).
const MESSAGES = [{ method: 'POST', path: '/v1/messages' }];
const OLLAMA_ROUTES = [
  { method: 'GET', path: '/v1/models' },
  { method: 'GET', path: '/api/version' },
  { method: 'GET', path: '/api/tags' },
  { method: 'POST', path: '/v1/responses' },
];
const LMSTUDIO_ROUTES = [
  { method: 'GET', path: '/v1/models' },
  { method: 'POST', path: '/v1/responses' },
];

function gateway(rule: GatewayRule | { kind: 'none' }): GatewayRule {
  return GatewayRuleSchema.parse(rule);
}

describe('claude containment needs', () => {
  it('reaches its provider only through the gateway, upstream at api.anthropic.com or the operator ANTHROPIC_BASE_URL', () => {
    const base = { kind: 'gateway', api: 'anthropic-messages', inside: HTTP_INSIDE, routes: MESSAGES, models: ['claude-sonnet-4-5'] };
    expect(gateway(claude.containmentNeeds.egress(CLAUDE, {}))).toEqual({ ...base, upstream: 'https://api.anthropic.com' });
    expect(claude.containmentNeeds.egress(CLAUDE, { ANTHROPIC_BASE_URL: 'http://127.0.0.1:43117' })).toEqual({ ...base, upstream: 'http://127.0.0.1:43117' });
    // A gateway of the operator's own on another machine, even over plain http: the host connects, never the sandbox.
    expect(claude.containmentNeeds.egress(CLAUDE, { ANTHROPIC_BASE_URL: 'https://gateway.example.test/anthropic/' })).toEqual({ ...base, upstream: 'https://gateway.example.test/anthropic' });
    expect(claude.containmentNeeds.egress(CLAUDE, { ANTHROPIC_BASE_URL: 'http://gateway.example.test:8080' })).toEqual({ ...base, upstream: 'http://gateway.example.test:8080' });
    expect(claude.containmentNeeds.egress({ ...CLAUDE, model: null }, {})).toMatchObject({ models: null });
  });

  it('refuses a provider URL the gateway cannot forward to', () => {
    for (const url of ['ftp://gateway.example.test', 'https://user:secret@gateway.example.test', 'https://gateway.example.test/?key=1', 'not a url']) {
      expect(() => claude.containmentNeeds.egress(CLAUDE, { ANTHROPIC_BASE_URL: url })).toThrow(expect.objectContaining({ code: 'EGRESS_PROVIDER_UNSUPPORTED' }));
    }
  });

  it('gives the sandbox the gateway address and the placeholder, never a credential of the operator', () => {
    const rule = gateway(claude.containmentNeeds.egress(CLAUDE, {}));
    expect(claude.containmentNeeds.gatewayEnv(rule, { placeholder: 'PLACEHOLDER', caCertFile: null })).toEqual({
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${GATEWAY_INSIDE_PORT}`,
      ANTHROPIC_API_KEY: 'PLACEHOLDER',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
    expect(claude.containmentNeeds.homeEnv).toEqual([{ name: 'CLAUDE_CONFIG_DIR', dir: 'claude' }]);
  });
});

describe('codex containment needs', () => {
  it('a local provider profile reaches that provider through the gateway, wherever Codex itself would look', () => {
    const base = { kind: 'gateway', api: 'openai-responses', inside: HTTP_INSIDE, models: ['qwen3-coder:30b'] };
    expect(codex.containmentNeeds.egress(OLLAMA, {})).toEqual({ ...base, upstream: 'http://127.0.0.1:11434', routes: OLLAMA_ROUTES });
    expect(codex.containmentNeeds.egress(LMSTUDIO, {})).toEqual({ ...base, upstream: 'http://127.0.0.1:1234', routes: LMSTUDIO_ROUTES });
    expect(codex.containmentNeeds.egress(LMSTUDIO, { CODEX_OSS_BASE_URL: 'http://127.0.0.1:18435/v1' })).toEqual({ ...base, upstream: 'http://127.0.0.1:18435', routes: LMSTUDIO_ROUTES });
    expect(codex.containmentNeeds.egress(OLLAMA, { CODEX_OSS_PORT: '5000' })).toEqual({ ...base, upstream: 'http://127.0.0.1:5000', routes: OLLAMA_ROUTES });
    // Refused before the gateway: an Ollama on another machine (issue 28) is now reached by the host.
    expect(codex.containmentNeeds.egress(OLLAMA, { CODEX_OSS_BASE_URL: 'http://gpu-box.example.test:11434/v1' })).toEqual({ ...base, upstream: 'http://gpu-box.example.test:11434', routes: OLLAMA_ROUTES });
    const rule = gateway(codex.containmentNeeds.egress(OLLAMA, {}));
    expect(codex.containmentNeeds.gatewayEnv(rule, { placeholder: 'PLACEHOLDER', caCertFile: null })).toEqual({ CODEX_OSS_BASE_URL: `http://127.0.0.1:${GATEWAY_INSIDE_PORT}/v1` });
  });

  it('otherwise OpenAI over TLS terminated by the gateway, upstream at api.openai.com or the operator OPENAI_BASE_URL', () => {
    const rule = gateway(codex.containmentNeeds.egress(CODEX, {}));
    expect(rule).toEqual({
      kind: 'gateway',
      api: 'openai-responses',
      inside: { kind: 'tls', hosts: ['api.openai.com', 'chatgpt.com'] },
      upstream: 'https://api.openai.com',
      routes: [{ method: 'POST', path: '/v1/responses' }],
      models: null,
    });
    expect(codex.containmentNeeds.egress(CODEX, { OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1' })).toMatchObject({ upstream: 'http://127.0.0.1:9999' });
    expect(codex.containmentNeeds.gatewayEnv(rule, { placeholder: 'PLACEHOLDER', caCertFile: '/home/ca.pem' })).toEqual({ CODEX_API_KEY: 'PLACEHOLDER', CODEX_CA_CERTIFICATE: '/home/ca.pem' });
    expect(codex.containmentNeeds.homeEnv).toEqual([{ name: 'CODEX_HOME', dir: 'codex' }]);
  });
});
