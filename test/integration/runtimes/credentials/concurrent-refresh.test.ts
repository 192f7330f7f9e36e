import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CredentialGrant } from '../../../../main/runtimes/credentials/credential-grant';
import { REPO_ROOT } from '../../../support/run-cli';
import { jwtWithExpiry, startTokenEndpoint, type TokenEndpoint } from '../../../support/token-endpoint';
import { useTempDirs } from '../../../support/temp-dir';

const tempDir = useTempDirs();
let bundleDir = '';
let fixture = '';
let endpoint: TokenEndpoint | undefined;

beforeAll(async () => {
  bundleDir = mkdtempSync(path.join(tmpdir(), 'citadel-credential-bundle-'));
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(bundleDir, 'node_modules'), 'dir');
  fixture = path.join(bundleDir, 'gateway-credential.mjs');
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: ['test/integration/runtimes/credentials/fixtures/gateway-credential.ts'],
    outfile: fixture,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

/** Runs `script` (a path, or code with `-e`) in its own Node process; resolves with its stdout. */
function runNode(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: bundleDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${String(code)}: ${err}`))));
  });
}

const gateway = (grant: CredentialGrant, afterUnauthorized = false) => runNode([fixture, JSON.stringify(grant), afterUnauthorized ? '401' : '']).then((out) => JSON.parse(out) as Record<string, string>);

function expiredClaudeLogin(dir: string): string {
  const file = path.join(dir, '.credentials.json');
  writeFileSync(file, JSON.stringify({ claudeAiOauth: { accessToken: 'access-0', refreshToken: 'refresh-0', expiresAt: Date.now() - 1000, scopes: ['user:inference'] } }), { mode: 0o600 });
  return file;
}

describe('OAuth refresh across processes', () => {
  it('two gateways in two processes finding one expired Claude login refresh it once, and both use the new token', async () => {
    endpoint = await startTokenEndpoint((_body, index) => ({ status: 200, body: { access_token: `access-${index + 1}`, refresh_token: `refresh-${index + 1}`, expires_in: 3600 }, delayMs: 500 }));
    const dir = tempDir();
    const grant: CredentialGrant = { kind: 'claude_oauth', source: { kind: 'file', path: expiredClaudeLogin(dir) }, token_url: endpoint.url };
    const [a, b] = await Promise.all([gateway(grant), gateway(grant)]);
    expect(endpoint.requests).toHaveLength(1);
    expect(a.authorization).toBe('Bearer access-1');
    expect(b.authorization).toBe('Bearer access-1');
  });

  it('two gateways told 401 by the provider at once refresh a ChatGPT login once', async () => {
    const next = jwtWithExpiry(Math.floor(Date.now() / 1000) + 3600);
    endpoint = await startTokenEndpoint(() => ({ status: 200, body: { access_token: next, refresh_token: 'refresh-1', id_token: 'id-1' }, delayMs: 500 }));
    const file = path.join(tempDir(), 'auth.json');
    writeFileSync(file, JSON.stringify({ tokens: { id_token: 'id-0', access_token: jwtWithExpiry(Math.floor(Date.now() / 1000) + 600), refresh_token: 'refresh-0', account_id: 'acct' } }), { mode: 0o600 });
    const grant: CredentialGrant = { kind: 'codex_chatgpt', auth_file: file, token_url: endpoint.url };
    const [a, b] = await Promise.all([gateway(grant, true), gateway(grant, true)]);
    expect(endpoint.requests).toHaveLength(1);
    expect([a.authorization, b.authorization]).toEqual([`Bearer ${next}`, `Bearer ${next}`]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ tokens: { access_token: next, refresh_token: 'refresh-1' } });
  });

  it("waits for the operator's Claude Code holding its refresh lock, then uses what the CLI wrote instead of refreshing again", async () => {
    endpoint = await startTokenEndpoint(() => ({ status: 200, body: { access_token: 'access-by-citadel', expires_in: 3600 } }));
    const dir = tempDir();
    const file = expiredClaudeLogin(dir);
    // Stands in for Claude Code 2.1.328: its lock (same path and options, read from its bundle), then its own refresh written back.
    const cli = `
      const lockfile = require('proper-lockfile');
      const fs = require('node:fs');
      const dir = ${JSON.stringify(dir)};
      lockfile.lock(dir, { lockfilePath: dir + '/.oauth_refresh.lock', realpath: false, stale: 60000, update: 5000 }).then((release) => {
        process.stdout.write('locked\\n');
        setTimeout(() => {
          fs.writeFileSync(${JSON.stringify(file)}, JSON.stringify({ claudeAiOauth: { accessToken: 'access-by-the-cli', refreshToken: 'refresh-by-the-cli', expiresAt: Date.now() + 3600000 } }));
          release().then(() => process.exit(0));
        }, 1500);
      });`;
    const holder = spawn(process.execPath, ['-e', cli], { cwd: bundleDir, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const headers = await gateway({ kind: 'claude_oauth', source: { kind: 'file', path: file }, token_url: endpoint.url });
    expect(headers.authorization).toBe('Bearer access-by-the-cli');
    expect(endpoint.requests).toEqual([]);
  });
});
