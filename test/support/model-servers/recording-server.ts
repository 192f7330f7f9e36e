import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request exactly as a model server received it; `body` is the parsed JSON, or null when there was none or it was not JSON. */
export interface LoggedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

export type RequestHandler = (request: LoggedRequest, response: ServerResponse) => void;

/** A started loopback server that keeps every request it received, in order. */
export interface RecordingServer {
  readonly port: number;
  /** `http://<host>:<port>`. */
  readonly origin: string;
  requests(): readonly LoggedRequest[];
  close(): Promise<void>;
}

/** A loopback address: 127.0.0.2 stands in for a provider on another machine (it is not 127.0.0.1). */
export type LoopbackAddress = `127.${number}.${number}.${number}`;

/**
 * Starts an HTTP server on a loopback address only (never another interface: the vendor suite runs in
 * a loopback-only namespace and must not look like a real provider to anything else) that logs each
 * request before handing it to `handle`. Port 0 unless a runtime can only be pointed at a fixed port.
 */
export async function startRecordingServer(handle: RequestHandler, port = 0, host: LoopbackAddress = '127.0.0.1'): Promise<RecordingServer> {
  const log: LoggedRequest[] = [];
  const server = createServer((incoming, response) => {
    void readBody(incoming).then((raw) => {
      const request: LoggedRequest = { method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.headers, body: parseJson(raw) };
      log.push(request);
      try {
        handle(request, response);
      } catch (error) {
        // A scenario bug must show up as a failed request in the log, not as a hung CLI.
        sendJson(response, 599, { error: { type: 'scripted_server_bug', message: String(error) } });
      }
    });
  });
  await listen(server, port, host);
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    origin: `http://${host}:${bound}`,
    requests: () => [...log],
    close: () => close(server),
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** Server-sent events: one `event:`/`data:` pair per event, each followed by a blank line. */
export function sendSse(response: ServerResponse, events: readonly { event: string; data: unknown }[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const { event, data } of events) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  response.end();
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    incoming.on('error', () => resolve(''));
  });
}

function parseJson(raw: string): unknown {
  if (raw === '') return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return null;
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function close(server: Server): Promise<void> {
  // Keep-alive sockets from a CLI that is still retrying would otherwise hold close() open.
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
