import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCredentials } from '../../../../main/runtimes/claude/credentials';
import { codexCredentials } from '../../../../main/runtimes/codex/credentials';
import { credentialFacts, resolveGrant } from '../../../../main/runtimes/credentials/resolve-grant';
import type { CredentialDeps } from '../../../../main/runtimes/credentials/runtime-credentials';
import type { RuntimeProfile } from '../../../../shared/executors/runtime-profile';
import { isCitadelError } from '../../../../shared/errors';
import { fakeKeychain } from '../../../support/fake-keychain';
import { jwtWithExpiry } from '../../../support/token-endpoint';
import { useTempDirs } from '../../../support/temp-dir';

const tempDir = useTempDirs();
const NOW = Date.parse('2026-12-05T12:00:00.000Z');
const noKeychain: CredentialDeps = { keychain: null, now: () => NOW };

const claudeLogin = (expiresAt: number, refreshToken: string | null = 'refresh-secret') =>
  JSON.stringify({ claudeAiOauth: { accessToken: 'access-secret', refreshToken, expiresAt, scopes: ['user:inference'], subscriptionType: 'max' } });

const cloudProfile = (runtime: string): RuntimeProfile => ({ profile_id: 'p', runtime, model: 'm', local_provider: null, adapter_options: {} });

describe('Claude credential sources', () => {
  it('prefers the environment in Claude Code precedence: bearer token, then API key, then the long-lived OAuth token', async () => {
    const all = { ANTHROPIC_AUTH_TOKEN: 'tok', ANTHROPIC_API_KEY: 'key', CLAUDE_CODE_OAUTH_TOKEN: 'oat' };
    expect((await claudeCredentials.locate(null, all, noKeychain))?.grant).toEqual({ kind: 'static', headers: { authorization: 'Bearer tok' } });
    expect((await claudeCredentials.locate(null, { ANTHROPIC_API_KEY: 'key', CLAUDE_CODE_OAUTH_TOKEN: 'oat' }, noKeychain))?.grant).toEqual({ kind: 'static', headers: { 'x-api-key': 'key' } });
    expect((await claudeCredentials.locate(null, { CLAUDE_CODE_OAUTH_TOKEN: 'oat' }, noKeychain))?.grant).toEqual({
      kind: 'static',
      headers: { authorization: 'Bearer oat', 'anthropic-beta': 'oauth-2025-04-20' },
    });
  });

  it('an environment key wins over a login file, which is used otherwise, with its expiry and refreshability', async () => {
    const home = tempDir();
    mkdirSync(path.join(home, '.claude'));
    writeFileSync(path.join(home, '.claude', '.credentials.json'), claudeLogin(NOW + 3 * 3_600_000), { mode: 0o600 });
    expect((await claudeCredentials.locate(null, { HOME: home, ANTHROPIC_API_KEY: 'key' }, noKeychain))?.facts.kind).toBe('env_api_key');
    const located = await claudeCredentials.locate(null, { HOME: home }, noKeychain);
    expect(located?.grant).toEqual({ kind: 'claude_oauth', source: { kind: 'file', path: path.join(home, '.claude', '.credentials.json') }, token_url: null });
    expect(located?.facts).toEqual({
      kind: 'claude_login',
      label: `Claude login in ${path.join(home, '.claude', '.credentials.json')}`,
      expires_at: '2026-12-05T15:00:00.000Z',
      refreshable: true,
    });
    expect(JSON.stringify(located?.facts)).not.toMatch(/secret/);
  });

  it('reads CLAUDE_CONFIG_DIR and takes the scripted token endpoint from CLAUDE_CODE_CUSTOM_OAUTH_URL', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, '.credentials.json'), claudeLogin(NOW - 1000, null));
    const located = await claudeCredentials.locate(null, { CLAUDE_CONFIG_DIR: dir, CLAUDE_CODE_CUSTOM_OAUTH_URL: 'http://127.0.0.1:9/' }, noKeychain);
    expect(located?.grant).toMatchObject({ source: { kind: 'file', path: path.join(dir, '.credentials.json') }, token_url: 'http://127.0.0.1:9/v1/oauth/token' });
    expect(located?.facts.refreshable).toBe(false);
  });

  it('on macOS takes the Keychain item Claude Code uses before the file, without reading its secret (fake Keychain; unverified on a Mac)', async () => {
    const home = tempDir();
    mkdirSync(path.join(home, '.claude'));
    writeFileSync(path.join(home, '.claude', '.credentials.json'), claudeLogin(NOW + 3_600_000));
    const keychain = fakeKeychain({ 'Claude Code-credentials/alice': claudeLogin(NOW + 3_600_000) });
    const located = await claudeCredentials.locate(null, { HOME: home, USER: 'alice' }, { keychain, now: () => NOW });
    expect(located?.grant).toEqual({ kind: 'claude_oauth', source: { kind: 'keychain', service: 'Claude Code-credentials', account: 'alice' }, token_url: null });
    expect(located?.facts).toEqual({ kind: 'keychain', label: 'Claude login in the macOS Keychain (Claude Code-credentials)', expires_at: null, refreshable: true });
    expect(keychain.reads).toBe(0);
  });

  it('names the Keychain service with the config directory digest when CLAUDE_CONFIG_DIR is set, as Claude Code does', async () => {
    const dir = tempDir();
    const service = `Claude Code-credentials-${createHash('sha256').update(dir).digest('hex').slice(0, 8)}`;
    const keychain = fakeKeychain({ [`${service}/claude-code-user`]: claudeLogin(NOW + 3_600_000) });
    const located = await claudeCredentials.locate(null, { CLAUDE_CONFIG_DIR: dir, USER: 'not a valid name' }, { keychain, now: () => NOW });
    expect(located?.grant).toMatchObject({ source: { kind: 'keychain', service, account: 'claude-code-user' } });
  });

  it('finds none without a key or a login: resolveGrant refuses with RUNTIME_AUTH_MISSING and what to do; readiness says missing', async () => {
    const env = { HOME: tempDir() };
    const error = await resolveGrant('claude', claudeCredentials, cloudProfile('claude'), env, noKeychain).catch((e: unknown) => e);
    expect(isCitadelError(error) && error.code).toBe('RUNTIME_AUTH_MISSING');
    expect((error as Error).message).toContain('run `claude /login`');
    expect(await credentialFacts(claudeCredentials, env, noKeychain)).toEqual({
      kind: 'missing',
      label: 'none found: set ANTHROPIC_API_KEY or run `claude /login`',
      expires_at: null,
      refreshable: false,
    });
  });
});

describe('Codex credential sources', () => {
  const writeAuth = (auth: unknown) => {
    const home = tempDir();
    writeFileSync(path.join(home, 'auth.json'), JSON.stringify(auth), { mode: 0o600 });
    return home;
  };

  it('CODEX_API_KEY wins over OPENAI_API_KEY, and either over auth.json', async () => {
    const home = writeAuth({ OPENAI_API_KEY: 'file-key' });
    expect((await codexCredentials.locate(null, { CODEX_HOME: home, CODEX_API_KEY: 'a', OPENAI_API_KEY: 'b' }, noKeychain))?.grant).toEqual({ kind: 'static', headers: { authorization: 'Bearer a' } });
    expect((await codexCredentials.locate(null, { CODEX_HOME: home, OPENAI_API_KEY: 'b' }, noKeychain))?.grant).toEqual({ kind: 'static', headers: { authorization: 'Bearer b' } });
    const fromFile = await codexCredentials.locate(null, { CODEX_HOME: home }, noKeychain);
    expect(fromFile?.grant).toEqual({ kind: 'static', headers: { authorization: 'Bearer file-key' } });
    expect(fromFile?.facts).toEqual({ kind: 'codex_api_key_file', label: `API key in ${home}/auth.json`, expires_at: null, refreshable: false });
  });

  it("a ChatGPT login: its expiry from the access token, refreshable with a refresh token; Codex's own token URL override", async () => {
    const home = writeAuth({
      OPENAI_API_KEY: null,
      tokens: { id_token: 'id', access_token: jwtWithExpiry(NOW / 1000 + 7200), refresh_token: 'r', account_id: 'acct' },
      last_refresh: '2026-12-01T00:00:00Z',
    });
    const located = await codexCredentials.locate(null, { CODEX_HOME: home, CODEX_REFRESH_TOKEN_URL_OVERRIDE: 'http://127.0.0.1:9/oauth/token' }, noKeychain);
    expect(located?.grant).toEqual({ kind: 'codex_chatgpt', auth_file: `${home}/auth.json`, token_url: 'http://127.0.0.1:9/oauth/token' });
    expect(located?.facts).toEqual({ kind: 'chatgpt_login', label: `ChatGPT login in ${home}/auth.json`, expires_at: '2026-12-05T14:00:00.000Z', refreshable: true });
  });

  it('auth_mode decides between a stored key and stored tokens', async () => {
    const tokens = { id_token: 'id', access_token: 'opaque', refresh_token: 'r', account_id: 'acct' };
    const both = writeAuth({ auth_mode: 'chatgpt', OPENAI_API_KEY: 'k', tokens });
    expect((await codexCredentials.locate(null, { CODEX_HOME: both }, noKeychain))?.facts.kind).toBe('chatgpt_login');
    const keyMode = writeAuth({ auth_mode: 'apikey', OPENAI_API_KEY: 'k', tokens });
    expect((await codexCredentials.locate(null, { CODEX_HOME: keyMode }, noKeychain))?.facts.kind).toBe('codex_api_key_file');
  });

  it('a local provider takes no credential, even with none on the machine', async () => {
    const profile: RuntimeProfile = { ...cloudProfile('codex'), local_provider: 'ollama' };
    expect(await resolveGrant('codex', codexCredentials, profile, { HOME: tempDir() }, noKeychain)).toEqual({ kind: 'none' });
    await expect(resolveGrant('codex', codexCredentials, cloudProfile('codex'), { HOME: tempDir() }, noKeychain)).rejects.toMatchObject({ code: 'RUNTIME_AUTH_MISSING' });
  });
});
