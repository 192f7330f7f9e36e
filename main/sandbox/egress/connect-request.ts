import { isIP } from 'node:net';
import type { EgressDenial, EgressDenialReason } from './egress-denial';

/** The only port a cloud runtime may reach: its API over TLS. */
export const CLOUD_API_PORT = 443;

/** A CONNECT head is one line and a few headers; 8 KiB is what common proxies allow too. */
export const DEFAULT_MAX_HEAD_BYTES = 8 * 1024;

export type HeadRead =
  | { readonly state: 'incomplete' }
  | { readonly state: 'too_large' }
  /** `rest` is what the client sent after the head (already tunnel bytes). */
  | { readonly state: 'complete'; readonly head: string; readonly rest: Buffer };

/** Splits the request head (up to the blank line) off what a client has sent so far. */
export function readRequestHead(received: Buffer, maxBytes: number = DEFAULT_MAX_HEAD_BYTES): HeadRead {
  const end = received.indexOf('\r\n\r\n');
  if (end === -1) return received.length >= maxBytes ? { state: 'too_large' } : { state: 'incomplete' };
  if (end + 4 > maxBytes) return { state: 'too_large' };
  return { state: 'complete', head: received.subarray(0, end).toString('latin1'), rest: received.subarray(end + 4) };
}

export type ConnectVerdict =
  | { readonly allowed: true; readonly host: string; readonly port: number }
  | { readonly allowed: false; readonly denial: EgressDenial };

// RFC 9110 method token, one request-target, HTTP/1.0 or 1.1.
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/1\.[01]$/;

/**
 * Whether a request head may open a tunnel: only `CONNECT <host>:443` for a host in the allowlist,
 * compared exactly (case-insensitively, as DNS names are); IP literals never match.
 */
export function judgeRequestHead(head: string, allowedHosts: ReadonlySet<string>): ConnectVerdict {
  const line = REQUEST_LINE.exec(head.split('\r\n', 1)[0] ?? '');
  if (line === null) return deny(null, null, 'malformed_request');
  const [, method, target] = line as unknown as [string, string, string];
  if (method !== 'CONNECT') {
    const named = absoluteFormAuthority(target);
    return deny(named?.host ?? null, named?.port ?? null, 'method_not_connect');
  }
  const authority = parseAuthority(target);
  if (authority === null) return deny(null, null, 'malformed_request');
  const { host, port } = authority;
  if (isIP(host) !== 0) return deny(host, port, 'ip_literal');
  if (!allowedHosts.has(host)) return deny(host, port, 'host_not_allowed');
  if (port !== CLOUD_API_PORT) return deny(host, port, 'port_not_allowed');
  return { allowed: true, host, port };
}

/** The response each refusal gets; policy refusals are 403, protocol errors say what was wrong. */
export const DENIAL_STATUS: Readonly<Record<EgressDenialReason, string>> = {
  method_not_connect: '405 Method Not Allowed',
  malformed_request: '400 Bad Request',
  ip_literal: '403 Forbidden',
  host_not_allowed: '403 Forbidden',
  port_not_allowed: '403 Forbidden',
  head_too_large: '431 Request Header Fields Too Large',
  head_timeout: '408 Request Timeout',
  path_not_allowed: '403 Forbidden',
  upgrade_not_allowed: '403 Forbidden',
  // The gateway's: none is a status a runtime retries (Claude Code's SDK retries 408, 409, 429 and 5xx).
  query_not_allowed: '403 Forbidden',
  placeholder_mismatch: '403 Forbidden',
  body_too_large: '413 Content Too Large',
  body_unparsable: '400 Bad Request',
  body_encoding_unsupported: '415 Unsupported Media Type',
  model_not_allowed: '403 Forbidden',
  server_tool_refused: '403 Forbidden',
  mcp_servers_refused: '403 Forbidden',
  budget_exceeded: '403 Forbidden',
  usage_not_requested: '400 Bad Request',
  // A credential the host cannot obtain is an authentication failure; the supervisor ends the branch on it.
  credential_unavailable: '401 Unauthorized',
};

function deny(host: string | null, port: number | null, reason: EgressDenialReason): ConnectVerdict {
  return { allowed: false, denial: { host, port, reason } };
}

/** `host:port` or `[v6]:port` (authority-form, RFC 9110 §9.3.6), host lower-cased. */
export function parseAuthority(target: string): { host: string; port: number } | null {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(target);
  if (match === null) return null;
  const port = Number(match[3]);
  if (port < 1 || port > 65_535) return null;
  return { host: (match[1] ?? match[2] ?? '').toLowerCase(), port };
}

/** For the denial record only: where a plain proxy request (`GET http://host/…`) wanted to go. */
function absoluteFormAuthority(target: string): { host: string; port: number | null } | null {
  if (!URL.canParse(target)) return null;
  const url = new URL(target);
  if (url.hostname === '') return null;
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port === '' ? null : Number(url.port) };
}
