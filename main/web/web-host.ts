import { realpath } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_CALL_PREFIX, API_EVENTS_PATH, TOKEN_HEADER, TOKEN_QUERY } from '../../shared/ipc/web-protocol';
import { isChannelName } from '../../shared/ipc/contract';
import type { MissionControlService } from '../mission-control/service';
import { handleApiCall } from './api-call';
import { createEventStreams } from './event-stream';
import { foreignHostOrOrigin } from './host-origin';
import { refuse } from './respond';
import { setSecurityHeaders } from './security-headers';
import { resolveStaticFile, sendStaticFile } from './static-files';
import { newToken, tokenMatches } from './token';

// Never anything but loopback: the host is for the operator's own browser on this machine.
const LOOPBACK = '127.0.0.1';
const DEFAULT_HEARTBEAT_MS = 15_000;

export interface WebHostOptions {
  readonly service: MissionControlService;
  /** 0 picks a free port. */
  readonly port?: number;
  /** The built renderer (index.html and its assets). */
  readonly staticDir: string;
  readonly heartbeatMs?: number;
}

export interface WebHost {
  /** The page's address with the token, for the operator to open. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

/** Serves Mission Control over HTTP on 127.0.0.1 with a per-run token (shared/ipc/web-protocol.ts). */
export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const staticRoot = await realpath(options.staticDir);
  const token = newToken();
  const streams = createEventStreams(options.service, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  let port = 0;

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    setSecurityHeaders(res);
    const foreign = foreignHostOrOrigin(req.headers, port);
    if (foreign !== null) return refuse(res, 403, foreign === 'host' ? 'the Host header is not this host' : 'the request comes from another origin');
    const url = new URL(req.url ?? '/', `http://${LOOPBACK}:${port}`);
    const method = req.method ?? 'GET';

    if (url.pathname === API_EVENTS_PATH || url.pathname.startsWith('/api/')) {
      const given = url.pathname === API_EVENTS_PATH ? url.searchParams.get(TOKEN_QUERY) : req.headers[TOKEN_HEADER];
      if (!tokenMatches(token, typeof given === 'string' ? given : null)) return refuse(res, 401, 'a valid token is required; open the URL citadel mission-control printed');
      if (url.pathname === API_EVENTS_PATH) {
        if (method !== 'GET') return refuse(res, 405, 'the event stream is read with GET', { Allow: 'GET' });
        return streams.open(res);
      }
      const channel = url.pathname.startsWith(API_CALL_PREFIX) ? url.pathname.slice(API_CALL_PREFIX.length) : null;
      if (channel === null || !isChannelName(channel)) return refuse(res, 404, 'no such API path');
      if (method !== 'POST') return refuse(res, 405, 'a call is made with POST', { Allow: 'POST' });
      return handleApiCall(options.service, channel, req, res);
    }

    if (method !== 'GET' && method !== 'HEAD') return refuse(res, 405, 'the page is read with GET', { Allow: 'GET, HEAD' });
    const file = await resolveStaticFile(staticRoot, url.pathname);
    if (file === null) return refuse(res, 404, 'not found');
    return sendStaticFile(res, file, method === 'HEAD');
  };

  const server = createServer((req, res) => {
    route(req, res).catch(() => {
      if (!res.headersSent) refuse(res, 500, 'the request failed');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: LOOPBACK, port: options.port ?? 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://${LOOPBACK}:${port}/?${TOKEN_QUERY}=${token}`,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        streams.closeAll();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
