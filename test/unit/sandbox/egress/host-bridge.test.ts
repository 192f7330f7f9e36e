import { chmodSync, chownSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, createServer as createHttpServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EgressDenial } from '../../../../main/sandbox/egress/egress-denial';
import type { EgressTarget } from '../../../../main/sandbox/egress/egress-target';
import { startHostBridge, type HostBridge, type HostBridgeOptions } from '../../../../main/sandbox/egress/host-bridge';
import { recordedPath } from '../../../../main/sandbox/egress/provider-proxy';
import { makeBridgeSocketPath } from '../../../../main/sandbox/egress/socket-dir';
import { MAX_SOCKET_PATH_BYTES } from '../../../../main/sandbox/egress/socket-path';
import { isCitadelError } from '../../../../shared/errors';
import { useTempDirs } from '../../../support/temp-dir';

const CLAUDE: EgressTarget = { kind: 'cloud', hosts: ['api.anthropic.com'] };
const tempDir = useTempDirs();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A loopback TCP server that echoes every byte and passes on the client's FIN; it records what it accepted. */
async function echoServer(): Promise<{ port: number; accepted: Socket[] }> {
  const accepted: Socket[] = [];
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    accepted.push(socket);
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  return { port: await listenLoopback(server), accepted };
}

async function listenLoopback(server: Server | ReturnType<typeof createHttpServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** Starts a bridge whose connector sends every allowed tunnel to a local port and records what it was asked for. */
async function bridgeTo(upstreamPort: number, overrides: Partial<HostBridgeOptions> = {}) {
  const denials: EgressDenial[] = [];
  const dialled: string[] = [];
  const bridge = await startHostBridge({
    socketPath: path.join(tempDir('citadel-egress-'), 'egress.sock'),
    target: CLAUDE,
    onDenial: (denial) => denials.push(denial),
    connect: (host, port) => {
      dialled.push(`${host}:${port}`);
      return connect({ host: '127.0.0.1', port: upstreamPort, allowHalfOpen: true });
    },
    ...overrides,
  });
  cleanups.push(() => bridge.close());
  return { bridge, denials, dialled };
}

function openClient(bridge: HostBridge): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path: bridge.socketPath, allowHalfOpen: true }, () => resolve(socket));
    socket.once('error', reject);
    cleanups.push(() => void socket.destroy());
  });
}

/** Collects what a socket receives until `done` says so (or the socket ends). */
function receive(socket: Socket, done: (text: string) => boolean = () => false): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const finish = (): void => {
      socket.removeListener('data', onData);
      resolve(text);
    };
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('latin1');
      if (done(text)) finish();
    };
    socket.on('data', onData);
    socket.once('end', finish);
    socket.once('close', finish);
  });
}

const headDone = (text: string): boolean => text.includes('\r\n\r\n');
const connectHead = (target: string): string => `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`;
// Half-open sockets: the peer going away shows as 'end'.
const ended = (socket: Socket): Promise<void> => new Promise((resolve) => (socket.readableEnded ? resolve() : socket.once('end', () => resolve())));

async function ask(bridge: HostBridge, head: string | Buffer): Promise<string> {
  const client = await openClient(bridge);
  client.write(head);
  return receive(client);
}

describe('host bridge, cloud mode (filtering CONNECT proxy)', () => {
  it('tunnels bytes both ways to an allowed host on 443, early bytes and half-close included', async () => {
    const upstream = await echoServer();
    const { bridge, dialled, denials } = await bridgeTo(upstream.port);
    const client = await openClient(bridge);
    client.write(`${connectHead('api.anthropic.com:443')}early`);
    const head = await receive(client, (text) => text.includes('early'));
    expect(head).toBe('HTTP/1.1 200 Connection Established\r\n\r\nearly');
    client.end('-and-last');
    // The client has shut down its sending side; the answer still arrives, then the tunnel closes.
    expect(await receive(client)).toBe('-and-last');
    expect(dialled).toEqual(['api.anthropic.com:443']);
    expect(denials).toEqual([]);
  });

  it('answers 403 to another host and records the denial; the same request passes where that host is allowed', async () => {
    const upstream = await echoServer();
    const { bridge, dialled, denials } = await bridgeTo(upstream.port);
    expect(await ask(bridge, connectHead('example.com:443'))).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(denials).toEqual([{ host: 'example.com', port: 443, reason: 'host_not_allowed' }]);
    expect(dialled).toEqual([]);

    const control = await bridgeTo(upstream.port, { target: { kind: 'cloud', hosts: ['example.com'] } });
    const client = await openClient(control.bridge);
    client.write(connectHead('example.com:443'));
    expect(await receive(client, headDone)).toMatch(/^HTTP\/1\.1 200 /);
    expect(control.dialled).toEqual(['example.com:443']);
  });

  it('refuses IP literals, other ports and non-CONNECT requests without dialling anything', async () => {
    const upstream = await echoServer();
    const { bridge, dialled, denials } = await bridgeTo(upstream.port);
    expect(await ask(bridge, connectHead('160.79.104.10:443'))).toMatch(/^HTTP\/1\.1 403 /);
    expect(await ask(bridge, connectHead('[::1]:443'))).toMatch(/^HTTP\/1\.1 403 /);
    expect(await ask(bridge, connectHead('api.anthropic.com:80'))).toMatch(/^HTTP\/1\.1 403 /);
    expect(await ask(bridge, 'GET http://api.anthropic.com/ HTTP/1.1\r\nHost: api.anthropic.com\r\n\r\n')).toMatch(/^HTTP\/1\.1 405 /);
    expect(await ask(bridge, 'not http at all\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(denials).toEqual([
      { host: '160.79.104.10', port: 443, reason: 'ip_literal' },
      { host: '::1', port: 443, reason: 'ip_literal' },
      { host: 'api.anthropic.com', port: 80, reason: 'port_not_allowed' },
      { host: 'api.anthropic.com', port: null, reason: 'method_not_connect' },
      { host: null, port: null, reason: 'malformed_request' },
    ]);
    expect(dialled).toEqual([]);
  });

  it('refuses an oversized head with 431, where the same request with a small head passes', async () => {
    const upstream = await echoServer();
    const { bridge, denials, dialled } = await bridgeTo(upstream.port, { maxHeadBytes: 1024 });
    const padding = `X-Padding: ${'p'.repeat(2048)}\r\n`;
    const answer = await ask(bridge, `CONNECT api.anthropic.com:443 HTTP/1.1\r\n${padding}\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(denials).toEqual([{ host: null, port: null, reason: 'head_too_large' }]);

    const client = await openClient(bridge);
    client.write(`CONNECT api.anthropic.com:443 HTTP/1.1\r\nX-Padding: short\r\n\r\n`);
    expect(await receive(client, headDone)).toMatch(/^HTTP\/1\.1 200 /);
    expect(dialled).toEqual(['api.anthropic.com:443']);
  });

  it('gives a slow client 408 once its time is up, where a client that finishes in time gets its tunnel', async () => {
    const upstream = await echoServer();
    const { bridge, denials } = await bridgeTo(upstream.port, { headTimeoutMs: 300 });
    const slow = await openClient(bridge);
    const started = performance.now();
    slow.write('CONNECT api.anthropic.com:443 HTTP/1.1\r\n');
    expect(await receive(slow)).toMatch(/^HTTP\/1\.1 408 /);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(denials).toEqual([{ host: null, port: null, reason: 'head_timeout' }]);

    const prompt = await openClient(bridge);
    prompt.write('CONNECT api.anthropic.com:443 HTTP/1.1\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    prompt.write('Host: api.anthropic.com:443\r\n\r\n');
    expect(await receive(prompt, headDone)).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers 502 when the allowed host cannot be reached', async () => {
    const gone = createServer();
    const port = await listenLoopback(gone);
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    const { bridge, denials } = await bridgeTo(port);
    expect(await ask(bridge, connectHead('api.anthropic.com:443'))).toMatch(/^HTTP\/1\.1 502 /);
    expect(denials).toEqual([]);
  });

  it('close() ends every open tunnel, on both sides, and stops listening', async () => {
    const upstream = await echoServer();
    const { bridge } = await bridgeTo(upstream.port);
    const client = await openClient(bridge);
    client.write(connectHead('api.anthropic.com:443'));
    await receive(client, headDone);
    client.write('still open');
    expect(await receive(client, (text) => text === 'still open')).toBe('still open');
    expect(upstream.accepted).toHaveLength(1);

    await bridge.close();
    await Promise.all([ended(client), ended(upstream.accepted[0] as Socket)]);
    expect(existsSync(bridge.socketPath)).toBe(false);
    await expect(openClient(bridge)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

const OLLAMA: EgressTarget = {
  kind: 'loopback',
  host: '127.0.0.1',
  port: 1,
  routes: [
    { method: 'GET', path: '/api/tags' },
    { method: 'POST', path: '/v1/responses' },
  ],
};

interface ProviderRequest {
  readonly method: string;
  readonly url: string;
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

/** A fake local provider: records every request it gets (body included) and answers with `answer`. */
async function fakeProvider(answer: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.end('provider')) {
  const seen: ProviderRequest[] = [];
  const server = createHttpServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', body, headers: request.headers });
      answer(request, response);
    });
  });
  const port = await listenLoopback(server);
  cleanups.push(() => void server.closeAllConnections());
  return { port, seen };
}

async function providerBridge(port: number, target: EgressTarget = OLLAMA, overrides: Partial<HostBridgeOptions> = {}) {
  const denials: EgressDenial[] = [];
  const bridge = await startHostBridge({
    socketPath: path.join(tempDir('citadel-egress-'), 'egress.sock'),
    target: { ...target, port } as EgressTarget,
    onDenial: (denial) => denials.push(denial),
    ...overrides,
  });
  cleanups.push(() => bridge.close());
  return { bridge, denials };
}

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly socket: Socket;
}

/** One HTTP request through the bridge socket; `agent` lets requests share a kept-alive connection. */
function send(bridge: HostBridge, method: string, url: string, body?: string, agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: bridge.socketPath, method, path: url, headers: { host: 'localhost:11434' }, ...(agent ? { agent } : {}) }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text, socket: response.socket as Socket }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('host bridge, loopback mode (one local provider, its routes only)', () => {
  it('passes an allowed route on with its headers and body, and refuses Ollama\'s model pull with 403 and a denial naming method and path only', async () => {
    const provider = await fakeProvider();
    const { bridge, denials } = await providerBridge(provider.port);
    expect(await send(bridge, 'GET', '/api/tags')).toMatchObject({ status: 200, body: 'provider' });
    const pull = await send(bridge, 'POST', '/api/pull?insecure=true', JSON.stringify({ model: 'registry.example.test/exfil:latest', stream: true }));
    expect(pull.status).toBe(403);
    expect(JSON.parse(pull.body)).toEqual({ error: expect.stringContaining('POST /api/pull is not one of') });
    expect(denials).toEqual([{ host: '127.0.0.1', port: provider.port, reason: 'path_not_allowed', method: 'POST', path: '/api/pull' }]);
    expect(provider.seen.map((seen) => `${seen.method} ${seen.url}`)).toEqual(['GET /api/tags']);
    expect(provider.seen[0]?.headers.host).toBe('localhost:11434');

    // Control: the same request reaches the provider where the route is allowed.
    const control = await providerBridge(provider.port, { kind: 'loopback', host: '127.0.0.1', port: 1, routes: [{ method: 'POST', path: '/api/pull' }] });
    expect(await send(control.bridge, 'POST', '/api/pull?insecure=true', '{"model":"m"}')).toMatchObject({ status: 200, body: 'provider' });
    expect(provider.seen.at(-1)).toMatchObject({ method: 'POST', url: '/api/pull?insecure=true', body: '{"model":"m"}' });
  });

  it('compares method and exact path: no other method, spelling, absolute form or trailing slash gets through', async () => {
    const provider = await fakeProvider();
    const { bridge, denials } = await providerBridge(provider.port);
    const refused = [
      ['POST', '/api/tags'],
      ['GET', '/v1/responses'],
      ['GET', '/api/tags/'],
      ['GET', '/api//tags'],
      ['GET', '/api/%74ags'],
      ['GET', '/v1/responses/../../api/tags'],
      ['GET', 'http://127.0.0.1:11434/api/tags'],
      ['DELETE', '/api/delete'],
    ] as const;
    for (const [method, url] of refused) expect((await send(bridge, method, url)).status, `${method} ${url}`).toBe(403);
    expect(denials.map((denial) => `${denial.method} ${denial.path}`)).toEqual(refused.map(([method, url]) => `${method} ${url}`));
    expect(provider.seen).toEqual([]);
    expect((await send(bridge, 'GET', '/api/tags?verbose=1')).status).toBe(200);
  });

  it('never lets a body ride unframed to the provider: a GET with a body is refused 400, and Connection cannot unframe a POST', async () => {
    // A raw provider: what reaches it, byte for byte, and one fixed answer per request head.
    const raw: string[] = [];
    const server = createServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        raw.push(chunk.toString('latin1'));
        if (chunk.includes('\r\n\r\n')) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nprovider');
      });
    });
    const port = await listenLoopback(server);
    cleanups.push(() => void server.close());
    const { bridge, denials } = await providerBridge(port);
    const smuggled = 'POST /api/pull HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}';
    const heads = [
      `GET /api/tags HTTP/1.1\r\nHost: x\r\nContent-Length: ${smuggled.length}\r\nConnection: content-length\r\n\r\n${smuggled}`,
      `GET /api/tags HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${smuggled.length.toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`,
    ];
    for (const head of heads) expect(await ask(bridge, head)).toMatch(/^HTTP\/1\.1 400 /);
    expect(denials.map((denial) => denial.reason)).toEqual(['malformed_request', 'malformed_request']);
    expect(raw.join('')).not.toContain('/api/pull');

    // A POST whose Connection header names Content-Length still reaches the provider framed.
    const client = await openClient(bridge);
    client.write('POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: content-length\r\n\r\n{}');
    // The client's connection stays alive after the answer: read up to the provider's body.
    const answer = await receive(client, (text) => text.endsWith('provider'));
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(raw.join('')).toMatch(/^POST \/v1\/responses HTTP\/1\.1\r\n[\s\S]*content-length: 2\r\n/im);
    // Control: a GET without a body passes.
    expect(await ask(bridge, 'GET /api/tags HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('streams an SSE answer event by event, in order: the first event arrives before the provider sends the rest', async () => {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const events = Array.from({ length: 5 }, (_, n) => `event: response.output_text.delta\ndata: {"n":${n}}\n\n`);
    const provider = await fakeProvider((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(events[0]);
      void released.then(async () => {
        for (const event of events.slice(1)) {
          response.write(event);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        response.end();
      });
    });
    const { bridge, denials } = await providerBridge(provider.port);
    const body = JSON.stringify({ model: 'qwen3-coder:30b', stream: true, input: 'x'.repeat(200_000) });
    const received = await new Promise<{ status: number; contentType: string; text: string }>((resolve, reject) => {
      const req = request({ socketPath: bridge.socketPath, method: 'POST', path: '/v1/responses', headers: { 'content-type': 'application/json', accept: 'text/event-stream' } }, (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          // Only once the first event is through does the provider send the others.
          if (text === '') release();
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type']), text }));
      });
      req.on('error', reject);
      // Sent in pieces (chunked): the bridge passes the body on as it comes.
      req.write(body.slice(0, 1000));
      setTimeout(() => req.end(body.slice(1000)), 20);
    });
    expect(received).toEqual({ status: 200, contentType: 'text/event-stream', text: events.join('') });
    expect(provider.seen[0]?.body).toBe(body);
    expect(denials).toEqual([]);
  });

  it('keeps the client connection alive across requests and idle time, as the provider would', async () => {
    const provider = await fakeProvider();
    const { bridge, denials } = await providerBridge(provider.port, OLLAMA, { headTimeoutMs: 200 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(() => agent.destroy());
    const first = await send(bridge, 'GET', '/api/tags', undefined, agent);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const second = await send(bridge, 'POST', '/v1/responses', '{}', agent);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.socket).toBe(first.socket);
    expect(denials).toEqual([]);
  });

  it('refuses a WebSocket upgrade and an oversized head, each recorded; a small head passes', async () => {
    const provider = await fakeProvider();
    const { bridge, denials } = await providerBridge(provider.port, OLLAMA, { maxHeadBytes: 1024 });
    const upgrade = await ask(bridge, 'GET /v1/responses HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    expect(upgrade).toMatch(/^HTTP\/1\.1 403 /);
    const large = await ask(bridge, `GET /api/tags HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'p'.repeat(2048)}\r\n\r\n`);
    expect(large).toMatch(/^HTTP\/1\.1 431 /);
    expect(denials).toEqual([
      { host: '127.0.0.1', port: provider.port, reason: 'upgrade_not_allowed', method: 'GET', path: '/v1/responses' },
      { host: '127.0.0.1', port: provider.port, reason: 'head_too_large' },
    ]);
    expect(await ask(bridge, 'GET /api/tags HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 [^]*provider$/);
    expect(provider.seen).toHaveLength(1);
  });

  it('gives a client that never finishes its head 408 and a denial, where a prompt one is answered', async () => {
    const provider = await fakeProvider();
    const { bridge, denials } = await providerBridge(provider.port, OLLAMA, { headTimeoutMs: 300 });
    const slow = await openClient(bridge);
    const started = performance.now();
    slow.write('GET /api/tags HTTP/1.1\r\n');
    expect(await receive(slow)).toMatch(/^HTTP\/1\.1 408 /);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(denials).toEqual([{ host: '127.0.0.1', port: provider.port, reason: 'head_timeout' }]);
    expect((await send(bridge, 'GET', '/api/tags')).status).toBe(200);
  });

  it('records a refused path bounded and printable, without its query', async () => {
    const provider = await fakeProvider();
    const { bridge, denials } = await providerBridge(provider.port);
    await ask(bridge, `GET /api/${'a'.repeat(400)}?token=secret HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    await ask(bridge, Buffer.from('GET /api/caf\xe9\x7f HTTP/1.1\r\nHost: localhost\r\n\r\n', 'latin1'));
    expect(denials).toEqual([
      { host: '127.0.0.1', port: provider.port, reason: 'path_not_allowed', method: 'GET', path: `/api/${'a'.repeat(251)}...` },
      // Node's parser refuses such a request line outright; recordedPath would still keep it printable.
      { host: '127.0.0.1', port: provider.port, reason: 'malformed_request' },
    ]);
    expect(recordedPath('/api/caf\u00e9\u007f\u2028?token=secret')).toBe('/api/caf%E9%7F%2028');
  });

  it('reads a loopback rule from before routes existed as the inference routes only, never the pull', async () => {
    const provider = await fakeProvider();
    const { bridge, denials } = await providerBridge(provider.port, { kind: 'loopback', host: '127.0.0.1', port: 1 });
    for (const url of ['/api/tags', '/api/version', '/v1/models']) expect((await send(bridge, 'GET', url)).status, url).toBe(200);
    expect((await send(bridge, 'POST', '/v1/responses', '{}')).status).toBe(200);
    expect((await send(bridge, 'POST', '/api/pull', '{}')).status).toBe(403);
    expect(denials.map((denial) => denial.path)).toEqual(['/api/pull']);
  });

  it('ends the connection without an answer when the provider is not running, as the provider itself would look', async () => {
    const gone = createServer();
    const port = await listenLoopback(gone);
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    const { bridge, denials } = await providerBridge(port);
    await expect(send(bridge, 'GET', '/api/tags')).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(denials).toEqual([]);
  });

  it('close() ends open provider requests and removes the socket and its private directory', async () => {
    const provider = await fakeProvider((_request, response) => response.writeHead(200, { 'content-type': 'text/event-stream' }).write('event: one\n\n'));
    const { bridge } = await providerBridge(provider.port);
    const client = await openClient(bridge);
    client.write('POST /v1/responses HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n');
    expect(await receive(client, (text) => text.includes('event: one'))).toMatch(/^HTTP\/1\.1 200 /);
    await bridge.close();
    await ended(client);
    expect(existsSync(path.dirname(bridge.socketPath))).toBe(false);
  });
});

describe('host bridge, its socket directory', () => {
  it('refuses to listen in a directory others can enter or that is not its own, where a private one works', async () => {
    const shared = tempDir('citadel-egress-');
    chmodSync(shared, 0o755);
    const others = tempDir('citadel-egress-');
    chownSync(others, 1000, 1000);
    for (const dir of [shared, others, path.join(tempDir('citadel-egress-'), 'missing')]) {
      const error: unknown = await startHostBridge({ socketPath: path.join(dir, 'egress.sock'), target: CLAUDE }).catch((caught: unknown) => caught);
      expect(isCitadelError(error) && error.code, dir).toBe('INTERNAL_ERROR');
    }
    expect(readdirSync(shared)).toEqual([]);
    const socketPath = await makeBridgeSocketPath();
    const bridge = await startHostBridge({ socketPath, target: CLAUDE });
    await bridge.close();
  });

  it('makeBridgeSocketPath: a fresh 0700 directory of ours each time, whatever another user planted under the old fixed names', async () => {
    const planted = path.join(tmpdir(), 'citadel-egress-0123456789abcdef.sock');
    writeFileSync(planted, 'planted');
    chownSync(planted, 1000, 1000);
    cleanups.push(() => rmSync(planted, { force: true }));
    const [a, b] = [await makeBridgeSocketPath(), await makeBridgeSocketPath()];
    cleanups.push(() => rmSync(path.dirname(a), { recursive: true, force: true }));
    cleanups.push(() => rmSync(path.dirname(b), { recursive: true, force: true }));
    expect(path.dirname(a)).not.toBe(path.dirname(b));
    for (const socket of [a, b]) {
      const dir = statSync(path.dirname(socket));
      expect([dir.mode & 0o777, dir.uid]).toEqual([0o700, process.getuid?.()]);
      expect(Buffer.byteLength(socket)).toBeLessThanOrEqual(MAX_SOCKET_PATH_BYTES);
      expect(existsSync(socket)).toBe(false);
    }
  });
});

describe('host bridge, refused configuration', () => {
  it('refuses a target the containment schema refuses, and a socket path too long for a unix socket, before listening', async () => {
    const dir = tempDir('citadel-egress-');
    const invalid: unknown[] = [
      { kind: 'cloud', hosts: ['160.79.104.10'] },
      { kind: 'cloud', hosts: ['API.anthropic.com'] },
      { kind: 'cloud', hosts: ['api.anthropic.com:443'] },
      { kind: 'cloud', hosts: [] },
      { kind: 'loopback', host: 'example.com', port: 443 },
      { kind: 'loopback', host: '127.0.0.1', port: 0 },
      { kind: 'none' },
    ];
    const refusals = [
      ...invalid.map((target, index) => startHostBridge({ socketPath: path.join(dir, `${index}.sock`), target: target as EgressTarget })),
      startHostBridge({ socketPath: path.join(dir, 'c'.repeat(120)), target: CLAUDE }),
    ];
    for (const refusal of refusals) {
      const error: unknown = await refusal.then(
        (bridge) => bridge.close(),
        (caught: unknown) => caught,
      );
      expect(isCitadelError(error) && error.code).toBe('INTERNAL_ERROR');
    }
    expect(readdirSync(dir)).toEqual([]);
    const control = await startHostBridge({ socketPath: path.join(dir, 'ok.sock'), target: { kind: 'cloud', hosts: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'] } });
    await control.close();
  });
});
