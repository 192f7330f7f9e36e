import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { createEventHub } from '../../../main/mission-control/event-hub';
import { createMissionControlService } from '../../../main/mission-control/service';
import type { MissionControlService } from '../../../main/mission-control/service';
import { MAX_BODY_BYTES } from '../../../main/web/api-call';
import { CONTENT_SECURITY_POLICY } from '../../../main/web/security-headers';
import { tokenMatches } from '../../../main/web/token';
import { startWebHost, type WebHost } from '../../../main/web/web-host';
import type { ForkEvent } from '../../../shared/fork/events';
import { replySchema } from '../../../shared/ipc/contract';
import { useTempDirs } from '../../support/temp-dir';
import { call, openEventStream, send } from './http-client';

const tempDir = useTempDirs();
const hosts: WebHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

const INDEX = '<!doctype html><title>Mission Control</title><script type="module" src="/assets/app.js"></script>\n';
const SECRET = 'outside-the-renderer';

interface Served {
  readonly host: WebHost;
  readonly base: string;
  /** Publishes a ForkEvent to every event stream. */
  publish(event: ForkEvent): void;
  subscribers(): number;
}

/**
 * A web host over a real service on a fresh fork root, whose events the test publishes itself,
 * serving a small renderer folder with a file and two symlinks that lead out of it beside it.
 */
async function serve(options: { heartbeatMs?: number } = {}): Promise<Served> {
  const base = tempDir('citadel-web-');
  const staticDir = path.join(base, 'renderer');
  mkdirSync(path.join(staticDir, 'assets'), { recursive: true });
  writeFileSync(path.join(staticDir, 'index.html'), INDEX);
  writeFileSync(path.join(staticDir, 'assets', 'app.js'), 'console.log("mission control");\n');
  writeFileSync(path.join(base, 'secret.txt'), SECRET);
  symlinkSync(path.join(base, 'secret.txt'), path.join(staticDir, 'leak.txt'));
  symlinkSync(base, path.join(staticDir, 'up'));
  const ctx = await openOrchestratorContext({ env: { ...process.env, CITADEL_HOME: path.join(base, 'root'), CITADEL_KEYSTORE: 'file', CITADEL_ISSUER: 'web-test' } });
  const real = createMissionControlService(ctx, { log: () => undefined });
  const hub = createEventHub(() => undefined);
  let count = 0;
  const service: MissionControlService = {
    handle: real.handle,
    subscribe: (listener) => {
      count += 1;
      const unsubscribe = hub.subscribe(listener);
      return () => {
        count -= 1;
        unsubscribe();
      };
    },
  };
  const host = await startWebHost({ service, port: 0, staticDir, ...options });
  hosts.push(host);
  return { host, base, publish: (event) => hub.publish(event), subscribers: () => count };
}

const errorCode = (body: string): unknown => (JSON.parse(body) as { error?: { code?: unknown } }).error?.code;

describe('the loopback web host', () => {
  it('prints a URL with a fresh 32-byte base64url token on 127.0.0.1', async () => {
    const { host } = await serve();
    const other = (await serve()).host;
    expect(host.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(host.token, 'base64url')).toHaveLength(32);
    expect(other.token).not.toBe(host.token);
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/?token=${host.token}`);
    expect(tokenMatches(host.token, host.token)).toBe(true);
    expect(tokenMatches(host.token, `${host.token}x`)).toBe(false);
    expect(tokenMatches(host.token, '')).toBe(false);
    expect(tokenMatches(host.token, null)).toBe(false);
  });

  it('makes a full call round trip with the typed reply envelope', async () => {
    const { host } = await serve();
    const listed = await call(host.port, host.token, 'listForks', { state: null }, { Origin: `http://127.0.0.1:${host.port}` });
    expect(listed.status).toBe(200);
    expect(listed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(listed.headers['cache-control']).toBe('no-store');
    expect(replySchema('listForks').parse(JSON.parse(listed.body))).toEqual({ ok: true, value: { forks: [] } });

    const settings = await call(host.port, host.token, 'settings', {}, { Host: `localhost:${host.port}`, Origin: `http://localhost:${host.port}` });
    expect(replySchema('settings').parse(JSON.parse(settings.body))).toMatchObject({ ok: true, value: { issuer_id: 'web-test', key_store: 'file' } });

    // A refused request and a failed call are typed replies too.
    const refused = await call(host.port, host.token, 'forkStatus', { fork_id: 'nope' });
    expect(refused.status).toBe(200);
    expect(JSON.parse(refused.body)).toMatchObject({ ok: false, error: { code: 'IPC_REQUEST_INVALID', violations: [{ path: '$.fork_id' }] } });
    const missing = await call(host.port, host.token, 'forkStatus', { fork_id: `fork-${'0'.repeat(26)}` });
    expect(JSON.parse(missing.body)).toMatchObject({ ok: false, error: { code: 'FORK_NOT_FOUND' } });
  });

  it('refuses a call or the event stream without the token, or with a wrong one', async () => {
    const { host } = await serve();
    const wrong = `${host.token.slice(0, -1)}${host.token.endsWith('A') ? 'B' : 'A'}`;
    const body = JSON.stringify({ state: null });
    const json = { 'Content-Type': 'application/json' };
    const attempts = [
      send(host.port, { method: 'POST', path: '/api/call/listForks', headers: json, body }),
      send(host.port, { method: 'POST', path: '/api/call/listForks', headers: { ...json, 'X-Citadel-Token': wrong }, body }),
      send(host.port, { method: 'POST', path: '/api/call/listForks', headers: { ...json, 'X-Citadel-Token': '' }, body }),
      // Calls take the token in the header only; the query is for EventSource.
      send(host.port, { method: 'POST', path: `/api/call/listForks?token=${host.token}`, headers: json, body }),
      send(host.port, { method: 'POST', path: '/api/call/nope', headers: json, body }),
      send(host.port, { path: '/api/events' }),
      send(host.port, { path: `/api/events?token=${wrong}` }),
      send(host.port, { path: '/api/events', headers: { 'X-Citadel-Token': host.token } }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(401);
      expect(errorCode(response.body)).toBe('WEB_REQUEST_REFUSED');
      expect(response.body).not.toContain('forks');
    }
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin, token or not', async () => {
    const { host } = await serve();
    const foreignHosts = [`evil.example:${host.port}`, `127.0.0.1:${host.port + 1}`, '127.0.0.1', `localhost.evil.example:${host.port}`, `[::1]:${host.port}`];
    for (const Host of foreignHosts) {
      const viaCall = await call(host.port, host.token, 'listForks', { state: null }, { Host });
      expect(viaCall.status, Host).toBe(403);
      expect(errorCode(viaCall.body)).toBe('WEB_REQUEST_REFUSED');
      expect((await send(host.port, { path: '/', headers: { Host } })).status, Host).toBe(403);
      expect((await send(host.port, { path: `/api/events?token=${host.token}`, headers: { Host } })).status, Host).toBe(403);
    }
    const foreignOrigins = ['http://evil.example', `http://evil.example:${host.port}`, `https://127.0.0.1:${host.port}`, `http://127.0.0.1:${host.port + 1}`, 'null'];
    for (const Origin of foreignOrigins) {
      expect((await call(host.port, host.token, 'listForks', { state: null }, { Origin })).status, Origin).toBe(403);
      expect((await send(host.port, { path: `/api/events?token=${host.token}`, headers: { Origin } })).status, Origin).toBe(403);
    }
  });

  it('listens on 127.0.0.1 only', async () => {
    const { host } = await serve();
    expect((await send(host.port, { path: '/' })).status).toBe(200);
    // 127.0.0.2 is loopback too: a server bound to every address (0.0.0.0) would answer there.
    // (The machine's own network addresses are not probed: this workplace sends test traffic to
    // loopback only.)
    for (const address of ['127.0.0.2', '::1']) {
      const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
        const socket = connect({ host: address, port: host.port });
        socket.once('connect', () => {
          socket.destroy();
          resolve(null);
        });
        socket.once('error', (err: NodeJS.ErrnoException) => resolve(err));
      });
      expect(error?.code, address).toMatch(/^(ECONNREFUSED|EADDRNOTAVAIL|ENETUNREACH)$/);
    }
  });

  it('serves the renderer and nothing outside it: no .., no encoded .., no symlink out', async () => {
    const { host, base } = await serve();
    const index = await send(host.port, { path: `/?token=${host.token}` });
    expect(index).toMatchObject({ status: 200, body: INDEX });
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    const script = await send(host.port, { path: '/assets/app.js' });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await send(host.port, { method: 'HEAD', path: '/assets/app.js' })).body).toBe('');

    const escapes = [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/%2E%2E/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets%2f..%2f..%2fsecret.txt',
      '/..%5csecret.txt',
      '/%252e%252e/secret.txt',
      '/leak.txt',
      '/up/secret.txt',
      `/${encodeURIComponent(path.join(base, 'secret.txt'))}`,
      '/assets',
      '/assets/',
      '/index.html%00.js',
      '/%zz',
      '/nope.html',
    ];
    for (const escape of escapes) {
      const response = await send(host.port, { path: escape });
      expect(response.status, escape).toBe(404);
      expect(response.body, escape).not.toContain(SECRET);
    }
  });

  it('answers wrong methods with 405, unknown API paths with 404, other bodies with 415, 413 or 400', async () => {
    const { host } = await serve();
    const token = { 'X-Citadel-Token': host.token };
    expect((await send(host.port, { path: '/api/call/listForks', headers: token })).status).toBe(405);
    expect((await send(host.port, { method: 'POST', path: `/api/events?token=${host.token}` })).status).toBe(405);
    expect((await send(host.port, { method: 'POST', path: '/' })).status).toBe(405);
    expect((await send(host.port, { method: 'DELETE', path: '/assets/app.js' })).status).toBe(405);
    for (const unknown of ['/api/call/nope', '/api/call/__proto__', '/api/call/', '/api/call/listForks/extra', '/api/other']) {
      expect((await send(host.port, { method: 'POST', path: unknown, headers: { ...token, 'Content-Type': 'application/json' }, body: '{}' })).status, unknown).toBe(404);
    }
    const textPlain = await send(host.port, { method: 'POST', path: '/api/call/listForks', headers: { ...token, 'Content-Type': 'text/plain' }, body: '{"state":null}' });
    expect(textPlain.status).toBe(415);
    const noType = await send(host.port, { method: 'POST', path: '/api/call/listForks', headers: token, body: '{"state":null}' });
    expect(noType.status).toBe(415);
    const charset = await send(host.port, { method: 'POST', path: '/api/call/listForks', headers: { ...token, 'Content-Type': 'application/json; charset=utf-8' }, body: '{"state":null}' });
    expect(charset.status).toBe(200);

    const notJson = await send(host.port, { method: 'POST', path: '/api/call/listForks', headers: { ...token, 'Content-Type': 'application/json' }, body: '{"state":' });
    expect(notJson.status).toBe(400);
    expect(errorCode(notJson.body)).toBe('IPC_REQUEST_INVALID');

    const big = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20);
    const declared = await send(host.port, { method: 'POST', path: '/api/call/openArtifact', headers: { ...token, 'Content-Type': 'application/json' }, body: big });
    expect(declared.status).toBe(413);
    const chunked = await send(host.port, {
      method: 'POST',
      path: '/api/call/openArtifact',
      headers: { ...token, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      body: big,
    });
    expect(chunked.status).toBe(413);
    // Exactly at the limit is read and parsed (the JSON is then refused by the channel's schema).
    const atLimit = `{"text":"${'x'.repeat(MAX_BODY_BYTES - 11)}"}`;
    expect(Buffer.byteLength(atLimit)).toBe(MAX_BODY_BYTES);
    const accepted = await send(host.port, { method: 'POST', path: '/api/call/openArtifact', headers: { ...token, 'Content-Type': 'application/json' }, body: atLimit });
    expect(accepted.status).toBe(200);
    expect(JSON.parse(accepted.body)).toMatchObject({ ok: false, error: { code: 'ARTIFACT_INVALID' } });
  });

  it('sets the CSP and the other security headers on every response, refusals included', async () => {
    const { host } = await serve();
    const responses = [
      await send(host.port, { path: '/' }),
      await send(host.port, { path: '/assets/app.js' }),
      await send(host.port, { path: '/nope' }),
      await send(host.port, { path: '/', headers: { Host: 'evil.example' } }),
      await call(host.port, host.token, 'listForks', { state: null }),
      await call(host.port, 'wrong', 'listForks', { state: null }),
    ];
    for (const response of responses) {
      expect(response.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe/);
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
  });

  it('streams events as server-sent events with heartbeats, and unsubscribes when the page goes', async () => {
    const served = await serve({ heartbeatMs: 50 });
    const { host } = served;
    const stream = await openEventStream(host.port, `/api/events?token=${host.token}`, { Origin: `http://127.0.0.1:${host.port}` });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['cache-control']).toBe('no-store');
    expect(stream.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    await stream.until((text) => text.includes(': connected'));
    expect(served.subscribers()).toBe(1);

    const event: ForkEvent = { type: 'fork_state', fork_id: `fork-${'1'.repeat(26)}`, state: 'running', revision: 3 };
    served.publish(event);
    const text = await stream.until((seen) => seen.includes('data: '));
    const data = text.split('\n').find((line) => line.startsWith('data: '));
    expect(JSON.parse(data?.slice('data: '.length) ?? 'null')).toEqual(event);
    await stream.until((seen) => seen.split(': heartbeat').length > 2);

    stream.close();
    await expect.poll(() => served.subscribers()).toBe(0);
  });

  it('cuts off a page that stops reading its event stream instead of buffering without end', async () => {
    const served = await serve();
    const { host } = served;
    const socket = connect({ host: '127.0.0.1', port: host.port });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /api/events?token=${host.token} HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n\r\n`);
    await expect.poll(() => served.subscribers()).toBe(1);
    socket.pause();
    const event: ForkEvent = { type: 'runtime', fork_id: `fork-${'2'.repeat(26)}`, branch_id: 'branch-claude', phase: 'launched' };
    // Bounded: 8 MiB of host buffer plus the kernel's socket buffers is far below 400k events.
    for (let batch = 0; batch < 400 && served.subscribers() > 0; batch += 1) {
      for (let i = 0; i < 1000; i += 1) served.publish(event);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(served.subscribers()).toBe(0);
    socket.destroy();
  });

  it('closes cleanly: open event streams end and the port stops answering', async () => {
    const served = await serve();
    const { host } = served;
    const stream = await openEventStream(host.port, `/api/events?token=${host.token}`);
    await stream.until((text) => text.includes(': connected'));
    await host.close();
    hosts.splice(hosts.indexOf(host), 1);
    expect(served.subscribers()).toBe(0);
    await expect(send(host.port, { path: '/' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
