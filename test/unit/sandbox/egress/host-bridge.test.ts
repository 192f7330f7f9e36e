import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EgressDenial } from '../../../../main/sandbox/egress/egress-denial';
import type { EgressTarget } from '../../../../main/sandbox/egress/egress-target';
import { startHostBridge, type HostBridge, type HostBridgeOptions } from '../../../../main/sandbox/egress/host-bridge';
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

async function listenLoopback(server: Server): Promise<number> {
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

describe('host bridge, loopback mode (one local provider)', () => {
  it('forwards every connection to the provider port, whatever the request names', async () => {
    const provider = createServer();
    const providerPort = await listenLoopback(provider);
    const other = createServer();
    const otherPort = await listenLoopback(other);
    const { createServer: createHttpServer } = await import('node:http');
    const answering = (name: string) => createHttpServer((_request, response) => response.end(name));
    provider.on('connection', (socket) => answering('provider').emit('connection', socket));
    other.on('connection', (socket) => answering('other').emit('connection', socket));

    const bridge = await startHostBridge({
      socketPath: path.join(tempDir('citadel-egress-'), 'egress.sock'),
      target: { kind: 'loopback', host: '127.0.0.1', port: providerPort },
    });
    cleanups.push(() => bridge.close());
    const get = (socketPath: string, host: string): Promise<string> =>
      new Promise((resolve, reject) => {
        request({ socketPath, path: '/', headers: { host } }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve(body));
        })
          .on('error', reject)
          .end();
      });
    expect(await get(bridge.socketPath, `127.0.0.1:${providerPort}`)).toBe('provider');
    expect(await get(bridge.socketPath, `127.0.0.1:${otherPort}`)).toBe('provider');
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
