import type { IncomingHttpHeaders } from 'node:http';

/**
 * The DNS-rebinding defence (web-protocol.ts): a page on any other site that gets its name to
 * resolve to 127.0.0.1 still sends its own Host and Origin. Only the bound loopback port under
 * its two local names is accepted; an Origin, when sent, must be that same origin.
 */
export function foreignHostOrOrigin(headers: IncomingHttpHeaders, port: number): 'host' | 'origin' | null {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (headers.host === undefined || !hosts.includes(headers.host)) return 'host';
  const origin = headers.origin;
  if (origin !== undefined && !hosts.some((host) => origin === `http://${host}`)) return 'origin';
  return null;
}
