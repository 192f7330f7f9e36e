import { describe, expect, it } from 'vitest';
import { checkPlaceholder, upstreamHeaders } from '../../../../main/sandbox/gateway/upstream-headers';

const PLACEHOLDER = 'citadel-placeholder-0123456789abcdef0123456789abcdef';

const pairs = (flat: readonly string[]): [string, string][] => flat.flatMap((value, index) => (index % 2 === 0 ? [[value.toLowerCase(), flat[index + 1] as string] as [string, string]] : []));

describe('checkPlaceholder', () => {
  it('accepts the placeholder as x-api-key or as a bearer token, and tells a request without any', () => {
    expect(checkPlaceholder({ 'x-api-key': PLACEHOLDER }, PLACEHOLDER)).toBe('matches');
    expect(checkPlaceholder({ authorization: `Bearer ${PLACEHOLDER}` }, PLACEHOLDER)).toBe('matches');
    expect(checkPlaceholder({ 'x-api-key': PLACEHOLDER, authorization: `bearer ${PLACEHOLDER}` }, PLACEHOLDER)).toBe('matches');
    expect(checkPlaceholder({ accept: '*/*' }, PLACEHOLDER)).toBe('absent');
    // Gemini's key header, and Azure OpenAI's.
    expect(checkPlaceholder({ 'x-goog-api-key': PLACEHOLDER }, PLACEHOLDER)).toBe('matches');
    expect(checkPlaceholder({ 'api-key': PLACEHOLDER }, PLACEHOLDER)).toBe('matches');
  });

  it('refuses any other credential, even alongside the placeholder', () => {
    for (const headers of [{ 'x-api-key': 'sk-ant-real' }, { authorization: 'Bearer sk-real' }, { authorization: PLACEHOLDER }, { authorization: `Basic ${PLACEHOLDER}` }, { 'x-api-key': PLACEHOLDER, authorization: 'Bearer other' }, { 'x-api-key': `${PLACEHOLDER}x` }, { 'x-goog-api-key': 'AIza-real' }, { 'x-goog-api-key': PLACEHOLDER, 'x-api-key': 'sk-ant-real' }, { authorization: `Bearer ${PLACEHOLDER}`, 'api-key': 'azure-real' }]) {
      expect(checkPlaceholder(headers, PLACEHOLDER)).toBe('mismatch');
    }
  });
});

describe('upstreamHeaders', () => {
  const client = ['Host', '127.0.0.1:18080', 'X-Api-Key', PLACEHOLDER, 'Authorization', `Bearer ${PLACEHOLDER}`, 'Cookie', 'a=b', 'ChatGPT-Account-Id', 'acct', 'Proxy-Authorization', 'x', 'Accept-Encoding', 'gzip, br', 'Content-Length', '10', 'Connection', 'keep-alive, X-Trace', 'X-Trace', '1', 'Keep-Alive', 'timeout=5', 'anthropic-beta', 'claude-code-20250219,context-management-2025-06-27', 'anthropic-version', '2023-06-01', 'Content-Type', 'application/json'];

  it('drops every client credential and hop-by-hop header, sets the real credential, identity encoding and the body length', () => {
    const sent = pairs(upstreamHeaders(client, { 'x-api-key': 'sk-ant-REAL' }, 42));
    expect(sent).toEqual([
      ['anthropic-beta', 'claude-code-20250219,context-management-2025-06-27'],
      ['anthropic-version', '2023-06-01'],
      ['content-type', 'application/json'],
      ['x-api-key', 'sk-ant-REAL'],
      ['accept-encoding', 'identity'],
      ['content-length', '42'],
    ]);
    expect(JSON.stringify(sent)).not.toContain(PLACEHOLDER);
  });

  it("drops Gemini's key and the headers that would rewrite the answer Google gives (a field mask, another method)", () => {
    const gemini = ['x-goog-api-key', PLACEHOLDER, 'X-Goog-FieldMask', 'candidates', 'X-HTTP-Method-Override', 'GET', 'api-key', PLACEHOLDER, 'x-goog-api-client', 'google-genai-sdk/1.30.0', 'Content-Type', 'application/json'];
    expect(pairs(upstreamHeaders(gemini, { 'x-goog-api-key': 'AIza-REAL' }, 7))).toEqual([
      ['x-goog-api-client', 'google-genai-sdk/1.30.0'],
      ['content-type', 'application/json'],
      ['x-goog-api-key', 'AIza-REAL'],
      ['accept-encoding', 'identity'],
      ['content-length', '7'],
    ]);
  });

  it("drops the headers that would pick another organization or project of the operator's key", () => {
    const scoped = ['Authorization', `Bearer ${PLACEHOLDER}`, 'OpenAI-Organization', 'org-other', 'OpenAI-Project', 'proj_other', 'x-goog-user-project', 'other-project', 'Content-Type', 'application/json'];
    expect(pairs(upstreamHeaders(scoped, { authorization: 'Bearer sk-REAL' }, 3))).toEqual([
      ['content-type', 'application/json'],
      ['authorization', 'Bearer sk-REAL'],
      ['accept-encoding', 'identity'],
      ['content-length', '3'],
    ]);
  });

  it("adds a credential's anthropic-beta flags to the client's, and replaces other same-named headers", () => {
    const sent = pairs(upstreamHeaders(client, { authorization: 'Bearer oauth-token', 'anthropic-beta': 'oauth-2025-04-20,claude-code-20250219', 'anthropic-version': '2023-06-01' }, null));
    expect(sent.filter(([name]) => name === 'anthropic-beta')).toEqual([['anthropic-beta', 'claude-code-20250219,context-management-2025-06-27,oauth-2025-04-20']]);
    expect(sent.filter(([name]) => name === 'authorization')).toEqual([['authorization', 'Bearer oauth-token']]);
    expect(sent.filter(([name]) => name === 'anthropic-version')).toHaveLength(1);
    expect(sent.some(([name]) => name === 'content-length')).toBe(false);
  });
});
