import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_ADAPTERS } from '../../../main/runtimes/registry';
import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const { claude, codex } = BUILTIN_ADAPTERS;
const CLAUDE: RuntimeProfile = { profile_id: 'claude-a', runtime: 'claude', model: null, local_provider: null, adapter_options: {} };
const CODEX: RuntimeProfile = { profile_id: 'codex-a', runtime: 'codex', model: null, local_provider: null, adapter_options: {} };
const OLLAMA: RuntimeProfile = { ...CODEX, profile_id: 'codex-o', model: 'qwen3-coder:30b', local_provider: 'ollama' };
const LMSTUDIO: RuntimeProfile = { ...OLLAMA, profile_id: 'codex-l', local_provider: 'lmstudio' };
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

describe('claude containment needs', () => {
  it('reaches api.anthropic.com, or exactly the loopback host:port of ANTHROPIC_BASE_URL', () => {
    expect(claude.containmentNeeds.egress(CLAUDE, {})).toEqual({ kind: 'cloud', hosts: ['api.anthropic.com'] });
    expect(claude.containmentNeeds.egress(CLAUDE, { ANTHROPIC_BASE_URL: 'http://127.0.0.1:43117' })).toEqual({ kind: 'loopback', host: '127.0.0.1', port: 43117, routes: MESSAGES });
    expect(claude.containmentNeeds.egress(CLAUDE, { ANTHROPIC_BASE_URL: 'http://localhost/gateway/' })).toEqual({ kind: 'loopback', host: 'localhost', port: 80, routes: [{ method: 'POST', path: '/gateway/v1/messages' }] });
    expect(claude.containmentNeeds.egress(CLAUDE, { ANTHROPIC_BASE_URL: 'https://gateway.example.test/anthropic' })).toEqual({ kind: 'cloud', hosts: ['gateway.example.test'] });
  });

  it('refuses a provider URL the sandbox cannot bridge', () => {
    for (const url of ['http://gateway.example.test', 'https://gateway.example.test:8443', 'not a url']) {
      expect(() => claude.containmentNeeds.egress(CLAUDE, { ANTHROPIC_BASE_URL: url })).toThrow(expect.objectContaining({ code: 'EGRESS_PROVIDER_UNSUPPORTED' }));
    }
  });

  it('points CLAUDE_CONFIG_DIR into the runtime home and seeds only an existing credentials file', () => {
    expect(claude.containmentNeeds.homeEnv).toEqual([{ name: 'CLAUDE_CONFIG_DIR', dir: 'claude' }]);
    const home = tempDir();
    expect(claude.containmentNeeds.seedFiles({ HOME: home })).toEqual([]);
    mkdirSync(path.join(home, '.claude'));
    writeFileSync(path.join(home, '.claude', '.credentials.json'), '{}');
    writeFileSync(path.join(home, '.claude.json'), '{}');
    expect(claude.containmentNeeds.seedFiles({ HOME: home })).toEqual([{ source: path.join(home, '.claude', '.credentials.json'), target: 'claude/.credentials.json' }]);
    const configDir = tempDir();
    writeFileSync(path.join(configDir, '.credentials.json'), '{}');
    expect(claude.containmentNeeds.seedFiles({ HOME: home, CLAUDE_CONFIG_DIR: configDir })).toEqual([{ source: path.join(configDir, '.credentials.json'), target: 'claude/.credentials.json' }]);
    expect(claude.containmentNeeds.seedFiles({})).toEqual([]);
  });
});

describe('codex containment needs', () => {
  it('a local provider profile reaches only that provider, where Codex itself would look', () => {
    expect(codex.containmentNeeds.egress(OLLAMA, {})).toEqual({ kind: 'loopback', host: '127.0.0.1', port: 11434, routes: OLLAMA_ROUTES });
    expect(codex.containmentNeeds.egress(LMSTUDIO, {})).toEqual({ kind: 'loopback', host: '127.0.0.1', port: 1234, routes: LMSTUDIO_ROUTES });
    expect(codex.containmentNeeds.egress(LMSTUDIO, { CODEX_OSS_BASE_URL: 'http://127.0.0.1:18435/v1' })).toEqual({ kind: 'loopback', host: '127.0.0.1', port: 18435, routes: LMSTUDIO_ROUTES });
    expect(codex.containmentNeeds.egress(OLLAMA, { CODEX_OSS_PORT: '5000' })).toEqual({ kind: 'loopback', host: '127.0.0.1', port: 5000, routes: OLLAMA_ROUTES });
    expect(() => codex.containmentNeeds.egress(OLLAMA, { CODEX_OSS_BASE_URL: 'http://gpu-box.example.test:11434/v1' })).toThrow(expect.objectContaining({ code: 'EGRESS_PROVIDER_UNSUPPORTED' }));
  });

  it('otherwise the OpenAI hosts, or a loopback OPENAI_BASE_URL', () => {
    expect(codex.containmentNeeds.egress(CODEX, {})).toEqual({ kind: 'cloud', hosts: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'] });
    expect(codex.containmentNeeds.egress(CODEX, { OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1' })).toEqual({
      kind: 'loopback',
      host: '127.0.0.1',
      port: 9999,
      routes: [
        { method: 'GET', path: '/v1/models' },
        { method: 'POST', path: '/v1/responses' },
      ],
    });
  });

  it('points CODEX_HOME into the runtime home and seeds only an existing auth.json', () => {
    expect(codex.containmentNeeds.homeEnv).toEqual([{ name: 'CODEX_HOME', dir: 'codex' }]);
    const home = tempDir();
    mkdirSync(path.join(home, '.codex'));
    writeFileSync(path.join(home, '.codex', 'config.toml'), '');
    expect(codex.containmentNeeds.seedFiles({ HOME: home })).toEqual([]);
    writeFileSync(path.join(home, '.codex', 'auth.json'), '{}');
    expect(codex.containmentNeeds.seedFiles({ HOME: home })).toEqual([{ source: path.join(home, '.codex', 'auth.json'), target: 'codex/auth.json' }]);
    const codexHome = tempDir();
    writeFileSync(path.join(codexHome, 'auth.json'), '{}');
    expect(codex.containmentNeeds.seedFiles({ HOME: home, CODEX_HOME: codexHome })).toEqual([{ source: path.join(codexHome, 'auth.json'), target: 'codex/auth.json' }]);
  });
});
