import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createSecureContext, TLSSocket, type SecureContext } from 'node:tls';
import { CLOUD_API_PORT, DENIAL_STATUS, judgeRequestHead } from '../egress/connect-request';
import type { EgressDenial } from '../egress/egress-denial';
import { issueLeaf, LEAF_VALIDITY_MS, type AttemptCa } from './attempt-ca';
import type { TlsInterception } from './start-gateway';

export interface TlsInterceptionOptions {
  /** The rule's `inside.hosts`: the only names a CONNECT (and the TLS SNI inside it) may carry, on 443. */
  readonly hosts: readonly string[];
  readonly ca: AttemptCa;
  /** Every decrypted request goes here (the gateway core's `handle`). */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  readonly onDenial: (denial: EgressDenial) => void;
}

export type TlsInterceptionHandle = TlsInterception & {
  /** Ends every open tunnel (the branch's runtime is gone). */
  close(): void;
};

/** A leaf is re-issued once half its day is gone, so no handshake ever sees an expiring one. */
const LEAF_RENEW_FRACTION = 0.5;

/**
 * CONNECT to an allowed host on 443 gets `200` and a TLS server with a leaf from the attempt's CA
 * for that host; the HTTP requests inside go to `handle`. Anything else is refused with the egress
 * bridge's statuses and recorded as a denial. Leaves are made lazily and live in memory only.
 */
export function createTlsInterception(options: TlsInterceptionOptions): TlsInterceptionHandle {
  const allowed = new Set(options.hosts.map((host) => host.toLowerCase()));
  const leaves = leafCache(options.ca);
  const tunnels = new Set<Duplex>();
  const inner = createServer((req, res) => options.handle(req, res));
  // Codex opens every turn with a WebSocket upgrade; 426 makes it fall back to HTTPS at once, where a
  // 403 costs five reconnects (test/fixtures/recordings/codex-cloud/a7_apikey_websocket_403). Not
  // a denial: it is the CLI's normal first try, and nothing is forwarded.
  inner.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
    socket.end('HTTP/1.1 426 Upgrade Required\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });

  return {
    handleConnect(req, socket, head) {
      socket.on('error', () => socket.destroy());
      const verdict = judgeRequestHead(`CONNECT ${req.url ?? ''} HTTP/1.1`, allowed);
      if (!verdict.allowed) {
        options.onDenial(verdict.denial);
        socket.end(`HTTP/1.1 ${DENIAL_STATUS[verdict.denial.reason]}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
        return;
      }
      const { host } = verdict;
      tunnels.add(socket);
      socket.once('close', () => tunnels.delete(socket));
      leaves.contextFor(host).then(
        (context) => {
          if (socket.destroyed) return;
          socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length > 0) socket.unshift(head);
          inner.emit('connection', terminate(socket, host, context, options.onDenial));
        },
        () => socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'),
      );
    },
    close() {
      for (const socket of tunnels) socket.destroy();
      inner.close();
    },
  };
}

/** Answers a ClientHello that names no server: it has no certificate, so that handshake fails. */
const NO_CERTIFICATE = createSecureContext({ minVersion: 'TLSv1.2' });

/**
 * The TLS server end of one tunnel. The leaf is given only through SNI, and only for the CONNECT
 * host: a ClientHello naming another host, or none (checking after the handshake is too late, the
 * client's first request may already be read), gets no certificate and the handshake fails.
 */
function terminate(socket: Duplex, host: string, context: SecureContext, onDenial: (denial: EgressDenial) => void): TLSSocket {
  let named = false;
  const tls = new TLSSocket(socket, {
    isServer: true,
    secureContext: NO_CERTIFICATE,
    ALPNProtocols: ['http/1.1'],
    SNICallback: (name, callback) => {
      named = true;
      if (name.toLowerCase() === host) return callback(null, context);
      onDenial({ host: name, port: CLOUD_API_PORT, reason: 'host_not_allowed' });
      callback(new Error('the TLS server name is not the CONNECT host'));
    },
  });
  tls.on('error', () => {
    if (!named) onDenial({ host: null, port: CLOUD_API_PORT, reason: 'host_not_allowed' });
    tls.destroy();
  });
  return tls;
}

function leafCache(ca: AttemptCa): { contextFor(host: string): Promise<SecureContext> } {
  const cache = new Map<string, { context: Promise<SecureContext>; renewAt: number }>();
  return {
    contextFor(host) {
      const cached = cache.get(host);
      if (cached !== undefined && Date.now() < cached.renewAt) return cached.context;
      const now = new Date();
      const context = issueLeaf(ca, host, now).then((leaf) => createSecureContext({ key: leaf.keyPem, cert: leaf.certPem, minVersion: 'TLSv1.2' }));
      const renewAt = now.getTime() + LEAF_RENEW_FRACTION * LEAF_VALIDITY_MS;
      cache.set(host, { context, renewAt });
      context.catch(() => cache.delete(host));
      return context;
    },
  };
}
