import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { endToEnd } from '../egress/provider-proxy';

/** Headers that carry a key: each one a client sends must be the placeholder (Anthropic's, Gemini's, Azure OpenAI's). */
const KEY_HEADERS = ['x-api-key', 'x-goog-api-key', 'api-key'] as const;
/** Headers that carry a client's credential or session: never forwarded, whatever they hold. */
const CLIENT_AUTH = new Set<string>([...KEY_HEADERS, 'authorization', 'cookie', 'proxy-authorization', 'chatgpt-account-id']);
/**
 * Headers with which Google's front end changes the request or the answer (a field mask that would
 * hide the model and usage from the witness, another method): no runtime sends them; never forwarded.
 */
const ANSWER_REWRITES = new Set(['x-goog-fieldmask', 'x-http-method-override', 'x-http-method', 'x-method-override']);
/**
 * Headers that pick which of the key's organizations or projects a request is billed to and acts in
 * (OpenAI's, Google Cloud's): the operator's key decides, not the sandbox; never forwarded.
 */
const ACCOUNT_SCOPE = new Set(['openai-organization', 'openai-project', 'x-goog-user-project']);
/** Set by the gateway itself: the upstream's host, the buffered body's length, an answer it can read. */
const GATEWAY_SET = new Set(['host', 'content-length', 'content-encoding', 'accept-encoding', 'expect']);
/** Lists of flags: the credential's (Claude OAuth's beta) join the client's instead of replacing them. */
const MERGED_LISTS = new Set(['anthropic-beta']);

/** The credentials a client presents: each key header's value and the `Authorization` bearer token (null: not a bearer). */
function presentedCredentials(headers: IncomingHttpHeaders): (string | null)[] {
  const presented: (string | null)[] = KEY_HEADERS.flatMap((name) => {
    const value = headers[name];
    return Array.isArray(value) ? value : value === undefined ? [] : [value];
  });
  if (headers.authorization !== undefined) presented.push(bearerToken(headers.authorization));
  return presented;
}

export type PlaceholderCheck = 'matches' | 'absent' | 'mismatch';

/**
 * Whether the request carries the sandbox's placeholder: every key header and the `Authorization`
 * header (as `Bearer <placeholder>`) must be it; compared in constant time, so that timing does not
 * tell the sandbox how much of a guess was right.
 */
export function checkPlaceholder(headers: IncomingHttpHeaders, placeholder: string): PlaceholderCheck {
  const presented = presentedCredentials(headers);
  if (presented.length === 0) return 'absent';
  const expected = Buffer.from(placeholder);
  const ok = presented.every((token) => {
    const given = Buffer.from(token ?? '');
    return token !== null && given.length === expected.length && timingSafeEqual(given, expected);
  });
  return ok ? 'matches' : 'mismatch';
}

function bearerToken(value: string): string | null {
  const match = /^Bearer +(\S+) *$/i.exec(value);
  return match === null ? null : (match[1] as string);
}

/**
 * The headers sent upstream, in raw (flat) form: the client's end-to-end headers without any
 * credential of its own nor those the gateway sets, then the credential's headers, `accept-encoding:
 * identity` (the witness reads the answer as it passes) and the body's length. Host is left to
 * the request, which names the upstream's.
 */
export function upstreamHeaders(rawHeaders: readonly string[], credential: Readonly<Record<string, string>>, bodyLength: number | null): string[] {
  const credentialNames = new Map(Object.entries(credential).map(([name, value]) => [name.toLowerCase(), value]));
  const kept: string[] = [];
  const merged = new Map<string, string[]>();
  const passed = endToEnd(rawHeaders);
  for (let i = 0; i + 1 < passed.length; i += 2) {
    const name = (passed[i] as string).toLowerCase();
    const value = passed[i + 1] as string;
    if (CLIENT_AUTH.has(name) || GATEWAY_SET.has(name) || ANSWER_REWRITES.has(name) || ACCOUNT_SCOPE.has(name)) continue;
    if (MERGED_LISTS.has(name) && credentialNames.has(name)) merged.set(name, [...(merged.get(name) ?? []), value]);
    else if (!credentialNames.has(name)) kept.push(passed[i] as string, value);
  }
  for (const [name, value] of credentialNames) {
    const flags = [...(merged.get(name) ?? []).flatMap((list) => list.split(',')), ...value.split(',')].map((flag) => flag.trim()).filter((flag) => flag !== '');
    kept.push(name, MERGED_LISTS.has(name) ? [...new Set(flags)].join(',') : value);
  }
  kept.push('accept-encoding', 'identity');
  if (bodyLength !== null) kept.push('content-length', String(bodyLength));
  return kept;
}
