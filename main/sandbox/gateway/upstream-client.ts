import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';

/** Provider connections one gateway keeps open at most (a runtime's parallel requests, e.g. sub-agents). */
const MAX_UPSTREAM_SOCKETS = 32;

export interface UpstreamClient {
  readonly host: string;
  readonly port: number;
  /**
   * Sends one request (path and query as the client sent them, below the upstream's base path) and
   * resolves with the answer's head. `signal` abandons it, the answer included.
   */
  send(method: string, pathAndQuery: string, headers: readonly string[], body: Buffer | null, signal: AbortSignal): Promise<IncomingMessage>;
  close(): void;
}

/**
 * The gateway's connections to its one upstream (`http(s)://host[:port][/base]`), kept alive between
 * requests: a fresh TLS handshake per request would add a round trip to every answer. A request that
 * fails on a kept-alive connection the provider had already closed, before any answer, is sent once
 * more on a new one: its body is buffered, and the provider never saw it.
 */
export function upstreamClient(upstream: string, extraCa?: string): UpstreamClient {
  const url = new URL(upstream);
  const secure = url.protocol === 'https:';
  const basePath = url.pathname === '/' ? '' : url.pathname;
  const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: MAX_UPSTREAM_SOCKETS, ...(extraCa === undefined ? {} : { ca: [...rootCertificates, extraCa] }) })
    : new HttpAgent({ keepAlive: true, maxSockets: MAX_UPSTREAM_SOCKETS });
  const open = secure ? httpsRequest : httpRequest;

  const attempt = (method: string, pathAndQuery: string, headers: readonly string[], body: Buffer | null, signal: AbortSignal, mayRetry: boolean): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      // Node adds no Host header to raw (array) headers: the upstream's own, as its URL names it.
      const request: ClientRequest = open({ host, port, method, path: `${basePath}${pathAndQuery}`, headers: ['host', url.host, ...headers], agent, signal });
      request.once('response', resolve);
      request.once('error', (error) => {
        if (mayRetry && request.reusedSocket && !signal.aborted) resolve(attempt(method, pathAndQuery, headers, body, signal, false));
        else reject(error);
      });
      request.end(body ?? undefined);
    });

  return {
    host,
    port,
    send: (method, pathAndQuery, headers, body, signal) => attempt(method, pathAndQuery, headers, body, signal, true),
    close: () => agent.destroy(),
  };
}
