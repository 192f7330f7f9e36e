import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import type { EgressDenial } from '../../../../main/sandbox/egress/egress-denial';
import { createAttemptCa, loadAttemptCa } from '../../../../main/sandbox/gateway/attempt-ca';
import { createTlsInterception, type TlsInterceptionHandle } from '../../../../main/sandbox/gateway/tls-interception';
import { openTunnel, requestOver, startTls } from '../../../support/connect-client';
import { useTempDirs } from '../../../support/temp-dir';

const tempDir = useTempDirs();

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly servername: string | null;
  readonly body: string;
}

interface Proxy {
  readonly port: number;
  readonly caPem: string;
  readonly denials: EgressDenial[];
  readonly seen: Seen[];
}

const opened: { server: Server; interception: TlsInterceptionHandle }[] = [];
afterEach(async () => {
  for (const { server, interception } of opened.splice(0)) {
    interception.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A CONNECT proxy on loopback whose tunnels the interception terminates; the scripted handler echoes what it saw. */
async function startProxy(hosts: readonly string[]): Promise<Proxy> {
  const files = await createAttemptCa(tempDir(), hosts);
  const denials: EgressDenial[] = [];
  const seen: Seen[] = [];
  const interception = createTlsInterception({
    hosts,
    ca: await loadAttemptCa(files),
    onDenial: (denial) => denials.push(denial),
    handle: (req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const servername = (req.socket as TLSSocket).servername;
        seen.push({ method: req.method ?? '', url: req.url ?? '', servername: typeof servername === 'string' ? servername : null, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ scripted: true }));
      });
    },
  });
  const server = createServer((_req, res) => {
    res.writeHead(405);
    res.end();
  });
  server.on('connect', (req: IncomingMessage, socket, head: Buffer) => interception.handleConnect(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  opened.push({ server, interception });
  return { port: (server.address() as AddressInfo).port, caPem: readFileSync(files.cert_file, 'utf8'), denials, seen };
}

describe('TLS interception of an allowed CONNECT', () => {
  it('lets a client that trusts only the attempt CA reach the scripted handler, tunnel after tunnel', async () => {
    const proxy = await startProxy(['api.openai.com']);
    const { status, socket } = await openTunnel(proxy.port, 'api.openai.com:443');
    expect(status).toBe(200);
    const tls = await startTls(socket, 'api.openai.com', proxy.caPem);
    expect(tls.authorized).toBe(true);
    const first = await requestOver(tls, { method: 'POST', host: 'api.openai.com', path: '/v1/responses', headers: { 'content-type': 'application/json' }, body: '{"model":"m"}' });
    expect(first).toMatchObject({ status: 200, body: '{"scripted":true}' });
    // A second tunnel reuses the cached leaf.
    const again = await openTunnel(proxy.port, 'api.openai.com:443');
    const second = await requestOver(await startTls(again.socket, 'api.openai.com', proxy.caPem), { method: 'GET', host: 'api.openai.com', path: '/v1/models?x=1' });
    expect(second.status).toBe(200);
    expect(proxy.seen).toEqual([
      { method: 'POST', url: '/v1/responses', servername: 'api.openai.com', body: '{"model":"m"}' },
      { method: 'GET', url: '/v1/models?x=1', servername: 'api.openai.com', body: '' },
    ]);
    expect(proxy.denials).toEqual([]);
    tls.destroy();
  });

  it('is refused by a client that does not trust the attempt CA: the system roots, or another attempt CA', async () => {
    const proxy = await startProxy(['api.openai.com']);
    const other = await startProxy(['api.openai.com']);
    const systemRoots = await openTunnel(proxy.port, 'api.openai.com:443');
    await expect(startTls(systemRoots.socket, 'api.openai.com', undefined)).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    const otherCa = await openTunnel(proxy.port, 'api.openai.com:443');
    await expect(startTls(otherCa.socket, 'api.openai.com', other.caPem)).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(proxy.seen).toEqual([]);
  });

  it('answers a WebSocket upgrade 426 so Codex falls back to HTTPS at once, and hands it nothing', async () => {
    const proxy = await startProxy(['api.openai.com']);
    const { socket } = await openTunnel(proxy.port, 'api.openai.com:443');
    const tls = await startTls(socket, 'api.openai.com', proxy.caPem);
    const upgrade = await requestOver(tls, { method: 'GET', host: 'api.openai.com', path: '/v1/responses', headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'AAAAAAAAAAAAAAAAAAAAAA==' } });
    expect(upgrade.status).toBe(426);
    expect(proxy.seen).toEqual([]);
  });
});

describe('TLS interception refusals', () => {
  it('refuses a CONNECT to a host outside inside.hosts, to another port, or to an IP literal, each as a denial', async () => {
    const proxy = await startProxy(['api.openai.com']);
    for (const target of ['exfil.example.com:443', 'api.openai.com:8443', '127.0.0.1:443', 'not-an-authority']) {
      const { status, socket } = await openTunnel(proxy.port, target);
      expect(status, target).toBe(target === 'not-an-authority' ? 400 : 403);
      socket.destroy();
    }
    expect(proxy.denials).toEqual([
      { host: 'exfil.example.com', port: 443, reason: 'host_not_allowed' },
      { host: 'api.openai.com', port: 8443, reason: 'port_not_allowed' },
      { host: '127.0.0.1', port: 443, reason: 'ip_literal' },
      { host: null, port: null, reason: 'malformed_request' },
    ]);
    expect(proxy.seen).toEqual([]);
  });

  it('refuses a TLS server name other than the CONNECT host (allowed when it is the CONNECT host)', async () => {
    const proxy = await startProxy(['api.openai.com', 'chatgpt.com']);
    // The same name through its own CONNECT works: the refusal below is about the mismatch alone.
    const matching = await openTunnel(proxy.port, 'chatgpt.com:443');
    const fine = await startTls(matching.socket, 'chatgpt.com', proxy.caPem);
    expect((await requestOver(fine, { method: 'GET', host: 'chatgpt.com', path: '/ok' })).status).toBe(200);

    const mismatched = await openTunnel(proxy.port, 'api.openai.com:443');
    await expect(startTls(mismatched.socket, 'chatgpt.com', proxy.caPem)).rejects.toThrow();
    const unnamed = await openTunnel(proxy.port, 'api.openai.com:443');
    const withoutSni = startTls(unnamed.socket, null, proxy.caPem).then((tls) => requestOver(tls, { method: 'GET', host: 'api.openai.com', path: '/no-sni' }));
    await expect(withoutSni).rejects.toThrow();
    expect(proxy.denials).toEqual([
      { host: 'chatgpt.com', port: 443, reason: 'host_not_allowed' },
      { host: null, port: 443, reason: 'host_not_allowed' },
    ]);
    expect(proxy.seen.map((s) => s.url)).toEqual(['/ok']);
  });
});
