import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { upstreamCredentialFor, type UpstreamCredentialDeps } from '../../../../main/runtimes/credentials/credential-for-grant';
import type { KeychainSource } from '../../../../main/runtimes/credentials/keychain';
import { fakeKeychain } from '../../../support/fake-keychain';
import { jwtWithExpiry, startTokenEndpoint, type TokenEndpoint, type TokenReply } from '../../../support/token-endpoint';
import { useTempDirs } from '../../../support/temp-dir';

const tempDir = useTempDirs();
const NOW = Date.parse('2026-12-05T12:00:00.000Z');
let endpoint: TokenEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

const deps = (home: string, keychain: KeychainSource | null = null): UpstreamCredentialDeps => ({ keychain, homeDir: home, now: () => NOW });
const renewed = (n: number): TokenReply => ({ status: 200, body: { access_token: `access-${n}`, refresh_token: `refresh-${n}`, expires_in: 28_800, scope: 'user:inference user:profile' } });

/** A Claude login file as Claude Code writes it, with fields Citadel does not read that must survive a refresh. */
function claudeFile(dir: string, expiresAt: number, mode = 0o600): string {
  const file = path.join(dir, '.credentials.json');
  const document = {
    claudeAiOauth: { accessToken: 'access-0', refreshToken: 'refresh-0', expiresAt, scopes: ['user:inference'], subscriptionType: 'max', rateLimitTier: 'default_claude_max_20x' },
    mcpOAuth: { server: { accessToken: 'mcp-token' } },
  };
  writeFileSync(file, JSON.stringify(document), { mode });
  return file;
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;

describe('upstream credential of a grant', () => {
  it('static headers as resolved, none for a local provider', async () => {
    expect(await upstreamCredentialFor({ kind: 'static', headers: { 'x-api-key': 'k' } }, deps(tempDir())).headers()).toEqual({ 'x-api-key': 'k' });
    expect(await upstreamCredentialFor({ kind: 'none' }, deps(tempDir())).headers()).toEqual({});
  });

  it('a fresh Claude login is used as it is: bearer and the OAuth beta, no refresh', async () => {
    endpoint = await startTokenEndpoint(() => renewed(1));
    const dir = tempDir();
    const file = claudeFile(dir, NOW + 3_600_000);
    const credential = upstreamCredentialFor({ kind: 'claude_oauth', source: { kind: 'file', path: file }, token_url: endpoint.url }, deps(dir));
    expect(await credential.headers()).toEqual({ authorization: 'Bearer access-0', 'anthropic-beta': 'oauth-2025-04-20' });
    expect(endpoint.requests).toEqual([]);
  });

  it("refreshes an expired Claude login once, as Claude Code asks, and writes it back keeping the file's other fields and its mode", async () => {
    endpoint = await startTokenEndpoint(() => ({ ...renewed(1), delayMs: 50 }));
    const dir = tempDir();
    const file = claudeFile(dir, NOW - 1000, 0o640);
    const credential = upstreamCredentialFor({ kind: 'claude_oauth', source: { kind: 'file', path: file }, token_url: endpoint.url }, deps(dir));
    const both = await Promise.all([credential.headers(), credential.headers()]);
    expect(both).toEqual([0, 1].map(() => ({ authorization: 'Bearer access-1', 'anthropic-beta': 'oauth-2025-04-20' })));
    expect(await credential.headers()).toEqual(both[0]);
    expect(endpoint.requests).toEqual([{ grant_type: 'refresh_token', refresh_token: 'refresh-0', client_id: '9d1c250a-e61b-44d9-88ed-5944d1962f5e', scope: 'user:inference' }]);
    const stored = readJson(file);
    expect(stored.claudeAiOauth).toEqual({
      accessToken: 'access-1',
      refreshToken: 'refresh-1',
      expiresAt: NOW + 28_800_000,
      scopes: ['user:inference', 'user:profile'],
      subscriptionType: 'max',
      rateLimitTier: 'default_claude_max_20x',
    });
    expect(stored.mcpOAuth).toEqual({ server: { accessToken: 'mcp-token' } });
    expect(statSync(file).mode & 0o777).toBe(0o640);
    // Both of Claude Code's refresh locks were taken and are released.
    expect(readdirSync(dir)).toEqual(['.credentials.json']);
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });

  it('a 401 upstream triggers one refresh of a login that had not expired, and the new token is served', async () => {
    endpoint = await startTokenEndpoint(() => renewed(1));
    const dir = tempDir();
    const file = claudeFile(dir, NOW + 3_600_000);
    const credential = upstreamCredentialFor({ kind: 'claude_oauth', source: { kind: 'file', path: file }, token_url: endpoint.url }, deps(dir));
    await credential.headers();
    expect(await credential.refreshAfterUnauthorized?.()).toBe(true);
    expect(endpoint.requests).toHaveLength(1);
    expect((await credential.headers()).authorization).toBe('Bearer access-1');
  });

  it('after a 401, a login another process already refreshed is taken from the file without a second refresh', async () => {
    endpoint = await startTokenEndpoint(() => renewed(1));
    const dir = tempDir();
    const file = claudeFile(dir, NOW + 3_600_000);
    const credential = upstreamCredentialFor({ kind: 'claude_oauth', source: { kind: 'file', path: file }, token_url: endpoint.url }, deps(dir));
    await credential.headers();
    const document = readJson(file);
    writeFileSync(file, JSON.stringify({ ...document, claudeAiOauth: { ...document.claudeAiOauth, accessToken: 'access-by-the-cli' } }));
    expect(await credential.refreshAfterUnauthorized?.()).toBe(true);
    expect(endpoint.requests).toEqual([]);
    expect((await credential.headers()).authorization).toBe('Bearer access-by-the-cli');
  });

  it('a refused refresh is CREDENTIAL_REFRESH_FAILED saying to log in again, holds no token, and leaves the file as it was', async () => {
    endpoint = await startTokenEndpoint(() => ({ status: 400, body: { error: 'invalid_grant', error_description: 'refresh-0 is revoked' } }));
    const dir = tempDir();
    const file = claudeFile(dir, NOW - 1000);
    const before = readFileSync(file, 'utf8');
    const credential = upstreamCredentialFor({ kind: 'claude_oauth', source: { kind: 'file', path: file }, token_url: endpoint.url }, deps(dir));
    const error = await credential.headers().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CREDENTIAL_REFRESH_FAILED', details: { reason: 'rejected' } });
    expect((error as Error).message).toBe('The provider refused to renew the login (HTTP 400): run `claude /login` on this machine and start the fork again');
    expect(JSON.stringify((error as { toData(): unknown }).toData())).not.toMatch(/refresh-0|access-0/);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('an unreachable token endpoint and a login without a refresh token are the same typed error', async () => {
    const dir = tempDir();
    const file = claudeFile(dir, NOW - 1000);
    const unreachable = upstreamCredentialFor({ kind: 'claude_oauth', source: { kind: 'file', path: file }, token_url: 'http://127.0.0.1:9/v1/oauth/token' }, deps(dir));
    await expect(unreachable.headers()).rejects.toMatchObject({ code: 'CREDENTIAL_REFRESH_FAILED', details: { reason: 'unreachable' } });
    writeFileSync(file, JSON.stringify({ claudeAiOauth: { accessToken: 'a', expiresAt: NOW - 1000 } }));
    await expect(unreachable.headers()).rejects.toMatchObject({ code: 'CREDENTIAL_REFRESH_FAILED', details: { reason: 'no_refresh_token' } });
  });

  it('a login whose directory cannot hold the lock fails as unreadable, at once', async () => {
    const home = tempDir();
    const keychain = fakeKeychain({ 'svc/alice': JSON.stringify({ claudeAiOauth: { accessToken: 'a', refreshToken: 'r', expiresAt: NOW - 1 } }) });
    // No ~/.claude here: Claude Code's lock directory cannot be made.
    const credential = upstreamCredentialFor({ kind: 'claude_oauth', source: { kind: 'keychain', service: 'svc', account: 'alice' }, token_url: 'http://127.0.0.1:9/t' }, deps(home, keychain));
    await expect(credential.headers()).rejects.toMatchObject({ code: 'CREDENTIAL_REFRESH_FAILED', details: { reason: 'unreadable' } });
  });

  it('a Keychain login is refreshed and written back through the same source (fake Keychain; unverified on a Mac)', async () => {
    endpoint = await startTokenEndpoint(() => renewed(1));
    const home = tempDir();
    mkdirSync(path.join(home, '.claude'));
    const keychain = fakeKeychain({ 'svc/alice': JSON.stringify({ claudeAiOauth: { accessToken: 'access-0', refreshToken: 'refresh-0', expiresAt: NOW - 1 } }) });
    const credential = upstreamCredentialFor({ kind: 'claude_oauth', source: { kind: 'keychain', service: 'svc', account: 'alice' }, token_url: endpoint.url }, deps(home, keychain));
    expect((await credential.headers()).authorization).toBe('Bearer access-1');
    expect(JSON.parse(keychain.items['svc/alice'] ?? '{}')).toMatchObject({ claudeAiOauth: { accessToken: 'access-1', refreshToken: 'refresh-1' } });
    // Read once before the refresh and once under the lock; a fresh token is then kept, not read per request.
    await credential.headers();
    await credential.headers();
    expect(keychain.reads).toBe(2);
  });

  it('a ChatGPT login past its JWT expiry is refreshed as Codex asks; auth.json keeps its other fields, mode and a new last_refresh; the account id is sent', async () => {
    const fresh = jwtWithExpiry(NOW / 1000 + 3600);
    endpoint = await startTokenEndpoint(() => ({ status: 200, body: { id_token: 'id-1', access_token: fresh, refresh_token: 'refresh-1' } }));
    const dir = tempDir();
    const file = path.join(dir, 'auth.json');
    writeFileSync(
      file,
      JSON.stringify({ OPENAI_API_KEY: null, tokens: { id_token: 'id-0', access_token: jwtWithExpiry(NOW / 1000 - 60), refresh_token: 'refresh-0', account_id: 'acct-1' }, last_refresh: '2026-11-01T00:00:00Z', agent_identity: 'kept' }),
      { mode: 0o600 },
    );
    const credential = upstreamCredentialFor({ kind: 'codex_chatgpt', auth_file: file, token_url: endpoint.url }, deps(dir));
    expect(await credential.headers()).toEqual({ authorization: `Bearer ${fresh}`, 'chatgpt-account-id': 'acct-1' });
    expect(endpoint.requests).toEqual([{ client_id: 'app_EMoamEEZ73f0CkXaXp7hrann', grant_type: 'refresh_token', refresh_token: 'refresh-0' }]);
    expect(readJson(file)).toEqual({
      OPENAI_API_KEY: null,
      tokens: { id_token: 'id-1', access_token: fresh, refresh_token: 'refresh-1', account_id: 'acct-1' },
      last_refresh: '2026-12-05T12:00:00.000Z',
      agent_identity: 'kept',
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('a refused ChatGPT refresh says to run `codex login`', async () => {
    endpoint = await startTokenEndpoint(() => ({ status: 401, body: { error: { code: 'refresh_token_reused' } } }));
    const dir = tempDir();
    const file = path.join(dir, 'auth.json');
    writeFileSync(file, JSON.stringify({ tokens: { id_token: 'i', access_token: jwtWithExpiry(NOW / 1000 - 60), refresh_token: 'r', account_id: 'a' } }));
    await expect(upstreamCredentialFor({ kind: 'codex_chatgpt', auth_file: file, token_url: endpoint.url }, deps(dir)).headers()).rejects.toThrow(
      /run `codex login` on this machine and start the fork again/,
    );
  });
});
