import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream';
import type { HttpRoute } from '../../../shared/sandbox/containment-policy';
import { DENIAL_STATUS } from './connect-request';
import { MAX_DENIED_PATH_CHARS, type EgressDenial, type EgressDenialReason } from './egress-denial';

export interface ProviderProxyOptions {
  readonly host: string;
  readonly port: number;
  readonly routes: readonly HttpRoute[];
  /** Opens one connection to the provider (half-open allowed, as net.connect can). */
  readonly connect: () => Socket;
  readonly onDenial: (denial: EgressDenial) => void;
  readonly maxHeadBytes: number;
  readonly headTimeoutMs: number;
  /** Each provider connection, so that closing the bridge can end it. */
  readonly track: (socket: Socket) => void;
}

// RFC 9110 §7.6.1 connection options, and the framing Node sets itself on each side.
const NEVER_HOP_BY_HOP = new Set(['content-length', 'host']);
const MAX_CONNECTIONS = 64;
const REQUEST_TIMEOUT_MS = 120_000;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * The host half of a local provider's egress: an HTTP reverse proxy that passes on only the
 * provider's routes (method and exact path) and refuses every other request with 403, recorded.
 * A raw byte forward would give the executor the provider's whole API, e.g. Ollama's `/api/pull`,
 * which downloads from any registry the request names. Bodies stream both ways as they come (SSE
 * included), the client's connection stays alive between requests, and each request gets its own
 * provider connection, so no stale pooled socket ever fails a request that cannot be retried.
 */
export function providerProxy(options: ProviderProxyOptions): Server {
  const allowed = new Set(options.routes.map((route) => `${route.method} ${route.path}`));
  const deny = (reason: EgressDenialReason, method: string, url: string): void =>
    options.onDenial({ host: options.host, port: options.port, reason, method: method.slice(0, 32), path: recordedPath(url) });

  const server = createServer(
    {
      maxHeaderSize: options.maxHeadBytes,
      headersTimeout: options.headTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, options.headTimeoutMs),
      // The provider itself (Ollama's Go server) never closes an idle connection: neither does this.
      keepAliveTimeout: 0,
      // A request whose body never ends would hold a provider connection for ever.
      requestTimeout: REQUEST_TIMEOUT_MS,
    },
    (client, response) => {
      const url = client.url ?? '';
      const method = client.method ?? '';
      if (!allowed.has(`${method} ${pathOf(url)}`)) {
        deny('path_not_allowed', method, url);
        refuse(response, 403, `${method} ${recordedPath(url)} is not one of this provider's inference routes`);
        return;
      }
      // Node frames no body of a GET or HEAD upstream: its bytes would reach the provider as a
      // request of their own (smuggled past the route check).
      if ((method === 'GET' || method === 'HEAD') && hasBody(client)) {
        deny('malformed_request', method, url);
        refuse(response, 400, `a ${method} request must not carry a body`);
        return;
      }
      forward(client, response, options);
    },
  );
  // An executor must not exhaust the supervisor's descriptors (every request holds a provider connection).
  server.maxConnections = MAX_CONNECTIONS;
  const endRaw = (socket: Duplex, reason: EgressDenialReason): void => {
    socket.on('error', () => socket.destroy());
    socket.end(`HTTP/1.1 ${DENIAL_STATUS[reason]}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`, () => socket.destroy());
  };
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const reason: EgressDenialReason = error.code === 'HPE_HEADER_OVERFLOW' ? 'head_too_large' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'head_timeout' : 'malformed_request';
    // A connection the client reset between requests is no refusal.
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    options.onDenial({ host: options.host, port: options.port, reason });
    endRaw(socket, reason);
  });
  // No local provider's runtime upgrades (recordings: no Upgrade header), nor uses it as a proxy.
  const refuseRaw = (reason: EgressDenialReason) => (client: IncomingMessage, socket: Duplex) => {
    deny(reason, client.method ?? '', client.url ?? '');
    endRaw(socket, reason);
  };
  server.on('upgrade', refuseRaw('upgrade_not_allowed'));
  server.on('connect', refuseRaw('path_not_allowed'));
  return server;
}

/** One allowed request to the provider, on its own connection; the answer is streamed back as it comes. */
function forward(client: IncomingMessage, response: ServerResponse, options: ProviderProxyOptions): void {
  const upstream = request({
    method: client.method,
    path: client.url,
    headers: endToEnd(client.rawHeaders),
    createConnection: () => {
      const socket = options.connect();
      options.track(socket);
      return socket;
    },
  });
  upstream.on('response', (answer) => {
    response.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
    // A streamed answer (SSE) must reach the client with its first event, not with its last.
    response.flushHeaders();
    pipeline(answer, response, () => undefined);
  });
  // The client sees what it would see of the provider itself: a connection that ends, no answer (a
  // 502 would read as a server error, which runtimes retry, not as "the provider is not running").
  upstream.on('error', () => response.destroy());
  // An error or a client gone before the end abandons the provider request too.
  pipeline(client, upstream, (error) => {
    if (error) upstream.destroy();
  });
  response.once('close', () => {
    if (!response.writableFinished) upstream.destroy();
  });
}

function hasBody(client: IncomingMessage): boolean {
  const length = client.headers['content-length'];
  return client.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function refuse(response: ServerResponse, status: 400 | 403, message: string): void {
  const body = JSON.stringify({ error: `Citadel egress bridge: ${message}` });
  // The connection is closed after a refusal: a refused request's body is never read on.
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
  response.end(body);
}

/**
 * rawHeaders without the hop-by-hop ones, nor any the Connection header names, except the
 * framing and routing headers: a Connection header naming Content-Length would unframe the body.
 */
export function endToEnd(raw: readonly string[]): string[] {
  const named = new Set(HOP_BY_HOP);
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === 'connection') {
      for (const token of (raw[i + 1] ?? '').split(',')) if (!NEVER_HOP_BY_HOP.has(token.trim().toLowerCase())) named.add(token.trim().toLowerCase());
    }
  }
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (!named.has((raw[i] as string).toLowerCase())) kept.push(raw[i] as string, raw[i + 1] as string);
  return kept;
}

/** The request-target up to its query: what a route names. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The path as a denial records it: no query (it may carry what the agent was after), every
 * character outside printable ASCII percent-encoded, cut to MAX_DENIED_PATH_CHARS.
 */
export function recordedPath(url: string): string {
  const printable = pathOf(url).replace(/[^\x21-\x7e]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return printable.length > MAX_DENIED_PATH_CHARS ? `${printable.slice(0, MAX_DENIED_PATH_CHARS)}...` : printable;
}
