import { request, type IncomingMessage } from 'node:http';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';

/** Sends `CONNECT target HTTP/1.1` to an HTTP proxy; resolves with its status and the open socket. */
export function openTunnel(proxyPort: number, target: string): Promise<{ status: number; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp(proxyPort, '127.0.0.1', () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return;
      socket.off('data', onData);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received.toString('latin1'))?.[1] ?? 0);
      resolve({ status, socket });
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

/**
 * TLS over a tunnel; rejects with the handshake error (e.g. an untrusted issuer). A null
 * `servername` sends no SNI at all and skips the client's own name check, as a hostile client might.
 */
export function startTls(socket: Socket, servername: string | null, ca: string | undefined): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const naming = servername === null ? { servername: '', checkServerIdentity: () => undefined } : { servername };
    const tls = connectTls({ socket, ...naming, ...(ca === undefined ? {} : { ca: [ca] }), ALPNProtocols: ['http/1.1'] }, () => resolve(tls));
    tls.once('error', reject);
  });
}

/** One HTTP/1.1 request over an already open (TLS) socket; resolves with status, headers and body. */
export function requestOver(
  socket: TLSSocket,
  options: { method: string; host: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; response: IncomingMessage; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ method: options.method, host: options.host, path: options.path, headers: options.headers, createConnection: () => socket }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, response, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.once('error', reject);
    req.end(options.body);
  });
}
