import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of the scripted token endpoint: a status and a JSON body, after an optional delay. */
export interface TokenReply {
  readonly status: number;
  readonly body: unknown;
  readonly delayMs?: number;
}

/**
 * A real OAuth token endpoint on loopback that answers each refresh-token grant as the test scripts
 * it, and records every request body it was sent.
 */
export interface TokenEndpoint {
  readonly url: string;
  readonly requests: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startTokenEndpoint(reply: (body: Record<string, unknown>, index: number) => TokenReply): Promise<TokenEndpoint> {
  const requests: Record<string, unknown>[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      requests.push(body);
      const answer = reply(body, requests.length - 1);
      setTimeout(() => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body)), answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/oauth/token`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An unsigned JWT-shaped token with an `exp`, as Codex's ChatGPT access tokens carry. */
export function jwtWithExpiry(expSeconds: number, extra: Record<string, unknown> = {}): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ exp: expSeconds, ...extra })}.sig`;
}
