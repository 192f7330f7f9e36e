import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface RawRequest {
  readonly method?: string;
  /** Sent exactly as given: no normalisation of `..` or percent-encoding. */
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** The address to connect to (default 127.0.0.1). */
  readonly host?: string;
}

/**
 * One HTTP request over a fresh connection, with every header under the test's control (Host
 * included: fetch would not let a test send a foreign one).
 */
export function send(port: number, options: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: options.host ?? '127.0.0.1',
      port,
      method: options.method ?? 'GET',
      path: options.path,
      setHost: false,
      agent: false,
      headers: { Host: `127.0.0.1:${port}`, ...options.headers },
    });
    req.on('response', (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A POST to a contract channel with the token and a JSON body. */
export function call(port: number, token: string, channel: string, payload: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return send(port, {
    method: 'POST',
    path: `/api/call/${channel}`,
    headers: { 'Content-Type': 'application/json', 'X-Citadel-Token': token, ...headers },
    body: JSON.stringify(payload),
  });
}

export interface EventStreamReader {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Resolves with everything read so far once `done` accepts it. */
  until(done: (text: string) => boolean): Promise<string>;
  close(): void;
}

/** Opens `GET /api/events` and reads it as text as it arrives. */
export function openEventStream(port: number, path: string, headers: Record<string, string> = {}): Promise<EventStreamReader> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, setHost: false, agent: false, headers: { Host: `127.0.0.1:${port}`, Accept: 'text/event-stream', ...headers } });
    req.on('response', (res) => {
      let text = '';
      const waiters: { done: (text: string) => boolean; resolve: (text: string) => void }[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (const waiter of [...waiters]) {
          if (waiter.done(text)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(text);
          }
        }
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        until: (done) => (done(text) ? Promise.resolve(text) : new Promise((resolveText) => waiters.push({ done, resolve: resolveText }))),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
