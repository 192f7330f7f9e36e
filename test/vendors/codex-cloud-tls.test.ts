/**
 * The REAL Codex 0.169.0 in cloud mode through the gateway's TLS interception (issue 28), with
 * Citadel's frozen argv: HTTPS_PROXY names a CONNECT proxy on loopback, CODEX_CA_CERTIFICATE the
 * attempt CA's certificate, and the decrypted requests reach a scripted Responses API. Not yet
 * through a contained fork (the lead wires the gateway into the supervisor): this proves the CA,
 * the leaves and the interception are what the real CLI accepts, for an API key and a ChatGPT login.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import type { EgressDenial } from '../../main/sandbox/egress/egress-denial';
import { createAttemptCa, loadAttemptCa } from '../../main/sandbox/gateway/attempt-ca';
import { createTlsInterception, type TlsInterceptionHandle } from '../../main/sandbox/gateway/tls-interception';
import { sendJson, sendSse } from '../support/model-servers/recording-server';
import { useVendorTempDirs, vendorPath } from './vendor-fork';

const tempDir = useVendorTempDirs();
const REPLY = 'SCRIPTED-REPLY: hello through the attempt CA.';
const USAGE = { input_tokens: 321, input_tokens_details: { cached_tokens: 0 }, output_tokens: 54, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 375 };

interface Seen {
  readonly servername: string | null;
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
}

const opened: { server: Server; interception: TlsInterceptionHandle }[] = [];
afterEach(async () => {
  for (const { server, interception } of opened.splice(0)) {
    interception.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** The scripted upstream: a Responses SSE answer for `responsesPath`, the ChatGPT account check, 403 for everything else. */
function scriptedUpstream(responsesPath: string, seen: Seen[]): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    req.resume();
    req.on('end', () => {
      const servername = (req.socket as TLSSocket).servername;
      seen.push({ servername: typeof servername === 'string' ? servername : null, method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      const route = `${req.method} ${(req.url ?? '').split('?')[0]}`;
      if (route === 'GET /backend-api/wham/accounts/check') {
        return sendJson(res, 200, { accounts: [{ id: 'acct-placeholder', workspace_backend_origin: 'https://chatgpt.com', account_routing_override: 'NO_CONSTRAINT' }] });
      }
      if (route !== `POST ${responsesPath}`) return sendJson(res, 403, { error: { message: 'scripted: route refused' } });
      const item = { type: 'message', id: 'msg_0', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: REPLY, annotations: [] }] };
      const response = { id: 'resp_0', object: 'response', model: 'gpt-5.1-codex' };
      sendSse(res, [
        { event: 'response.created', data: { type: 'response.created', response: { ...response, status: 'in_progress' } } },
        { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
        { event: 'response.completed', data: { type: 'response.completed', response: { ...response, status: 'completed', output: [item], usage: USAGE } } },
      ]);
    });
  };
}

async function startInterceptingProxy(hosts: readonly string[], responsesPath: string): Promise<{ port: number; caFile: string; seen: Seen[]; denials: EgressDenial[] }> {
  const files = await createAttemptCa(path.join(tempDir(), 'gateway-ca'), hosts);
  const seen: Seen[] = [];
  const denials: EgressDenial[] = [];
  const interception = createTlsInterception({ hosts, ca: await loadAttemptCa(files), handle: scriptedUpstream(responsesPath, seen), onDenial: (d) => denials.push(d) });
  const server = createServer((_req, res) => sendJson(res, 405, {}));
  server.on('connect', (req: IncomingMessage, socket, head: Buffer) => interception.handleConnect(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  opened.push({ server, interception });
  return { port: (server.address() as AddressInfo).port, caFile: files.cert_file, seen, denials };
}

async function runCodex(env: Record<string, string>, codexHome: string, killAfterMs = 90_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const repo = path.join(tempDir(), 'repo');
  mkdirSync(repo);
  execFileSync('git', ['init', '-q'], { cwd: repo });
  writeFileSync(path.join(repo, 'README.md'), '# test repo\n');
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init', '--allow-empty'], { cwd: repo });
  const home = path.join(tempDir(), 'home');
  mkdirSync(home);
  const child = spawn('codex', ['exec', '--json', '--sandbox', 'workspace-write', '--ignore-user-config', '--model', 'gpt-5.1-codex', '-'], {
    cwd: repo,
    env: { PATH: vendorPath(), HOME: home, CODEX_HOME: codexHome, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group: the npm wrapper's native child must go with it when the run is cut off.
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end('Say hello.');
  // An untrusted leaf makes Codex wait for the network forever (recordings codex-cloud/a8): bounded here.
  const timer = setTimeout(() => process.kill(-(child.pid ?? 0), 'SIGKILL'), killAfterMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

function agentMessages(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; item?: { type: string; text?: string } })
    .filter((event) => event.type === 'item.completed' && event.item?.type === 'agent_message')
    .map((event) => event.item?.text ?? '');
}

/** An unsigned JWT with the claims Codex reads (codex-rs/login token_data.rs); `exp` a day ahead so Codex never refreshes. */
function unsignedJwt(claims: Record<string, unknown>): string {
  return [{ alg: 'none', typ: 'JWT' }, claims].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.') + '.c2ln';
}

describe('real Codex 0.169.0 in cloud mode through the TLS interception', () => {
  it('with an API key: CONNECT api.openai.com, the leaf accepted, POST /v1/responses answered, nothing else reached', async () => {
    const proxy = await startInterceptingProxy(['api.openai.com'], '/v1/responses');
    const codexHome = path.join(tempDir(), 'codex-home');
    mkdirSync(codexHome);
    const run = await runCodex({ HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, CODEX_CA_CERTIFICATE: proxy.caFile, CODEX_API_KEY: 'sk-placeholder-0123456789abcdef' }, codexHome);
    expect(run.code, run.stderr).toBe(0);
    expect(agentMessages(run.stdout)).toEqual([REPLY]);
    const posts = proxy.seen.filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ servername: 'api.openai.com', url: '/v1/responses', headers: { authorization: 'Bearer sk-placeholder-0123456789abcdef', originator: 'codex_exec' } });
    // The WebSocket try got 426 and never reached the handler; other hosts were refused at CONNECT.
    expect(proxy.seen.every((s) => s.servername === 'api.openai.com' && s.headers.upgrade === undefined)).toBe(true);
    expect(proxy.denials.length).toBeGreaterThan(0);
    expect(proxy.denials.every((d) => d.reason === 'host_not_allowed' && d.host !== 'api.openai.com')).toBe(true);
  });

  it('trusting another attempt CA instead, Codex refuses the leaf and no request reaches the upstream', async () => {
    const proxy = await startInterceptingProxy(['api.openai.com'], '/v1/responses');
    const other = await createAttemptCa(path.join(tempDir(), 'other-ca'), ['api.openai.com']);
    const codexHome = path.join(tempDir(), 'codex-home');
    mkdirSync(codexHome);
    const run = await runCodex({ HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, CODEX_CA_CERTIFICATE: other.cert_file, CODEX_API_KEY: 'sk-placeholder-0123456789abcdef' }, codexHome, 15_000);
    expect(run.code).toBeNull();
    expect(agentMessages(run.stdout)).toEqual([]);
    expect(proxy.seen).toEqual([]);
  });

  it('with a ChatGPT login: CONNECT chatgpt.com, the account check and POST /backend-api/codex/responses with the account id', async () => {
    const proxy = await startInterceptingProxy(['chatgpt.com'], '/backend-api/codex/responses');
    const codexHome = path.join(tempDir(), 'codex-home');
    mkdirSync(codexHome);
    const auth = { chatgpt_plan_type: 'pro', chatgpt_user_id: 'user-placeholder', chatgpt_account_id: 'acct-placeholder' };
    const exp = Math.floor(Date.now() / 1000) + 86_400;
    const tokens = {
      id_token: unsignedJwt({ email: 'placeholder@example.invalid', exp, 'https://api.openai.com/auth': auth }),
      access_token: unsignedJwt({ exp, 'https://api.openai.com/auth': auth }),
      refresh_token: 'rt-placeholder',
      account_id: 'acct-placeholder',
    };
    writeFileSync(path.join(codexHome, 'auth.json'), JSON.stringify({ auth_mode: 'chatgpt', OPENAI_API_KEY: null, tokens, last_refresh: new Date().toISOString() }), { mode: 0o600 });
    const run = await runCodex({ HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, CODEX_CA_CERTIFICATE: proxy.caFile }, codexHome);
    expect(run.code, run.stderr).toBe(0);
    expect(agentMessages(run.stdout)).toEqual([REPLY]);
    const post = proxy.seen.find((s) => s.method === 'POST' && s.url === '/backend-api/codex/responses');
    expect(post).toMatchObject({ servername: 'chatgpt.com', headers: { authorization: `Bearer ${tokens.access_token}`, 'chatgpt-account-id': 'acct-placeholder', 'content-encoding': 'zstd' } });
    expect(proxy.seen.some((s) => s.url === '/backend-api/wham/accounts/check')).toBe(true);
    // No refresh was tried: auth.openai.com was never asked for (it would be a denial) and auth.json is as written.
    expect(proxy.denials.some((d) => d.host === 'auth.openai.com')).toBe(false);
    expect(JSON.parse(readFileSync(path.join(codexHome, 'auth.json'), 'utf8')).tokens.refresh_token).toBe('rt-placeholder');
  });
});
