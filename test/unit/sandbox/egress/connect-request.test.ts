import { describe, expect, it } from 'vitest';
import { judgeRequestHead, readRequestHead } from '../../../../main/sandbox/egress/connect-request';

const CLAUDE = new Set(['api.anthropic.com']);
const connectHead = (target: string): string => `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\nUser-Agent: probe`;

describe('readRequestHead', () => {
  it('waits for the blank line, then splits the head from the tunnel bytes after it', () => {
    expect(readRequestHead(Buffer.from('CONNECT api.anthropic.com:443 HTTP/1.1\r\n'))).toEqual({ state: 'incomplete' });
    const read = readRequestHead(Buffer.from('CONNECT api.anthropic.com:443 HTTP/1.1\r\n\r\n\x16\x03\x01'));
    expect(read.state).toBe('complete');
    if (read.state !== 'complete') return;
    expect(read.head).toBe('CONNECT api.anthropic.com:443 HTTP/1.1');
    expect([...read.rest]).toEqual([0x16, 0x03, 0x01]);
  });

  it('refuses a head longer than the limit, and accepts one that fits it exactly', () => {
    const fits = `${'a'.repeat(60)}\r\n\r\n`;
    expect(readRequestHead(Buffer.from(fits), fits.length).state).toBe('complete');
    expect(readRequestHead(Buffer.from(fits), fits.length - 1)).toEqual({ state: 'too_large' });
    // No blank line yet but already at the limit: no complete head can still fit.
    expect(readRequestHead(Buffer.from('a'.repeat(64)), 64)).toEqual({ state: 'too_large' });
    expect(readRequestHead(Buffer.from('a'.repeat(63)), 64)).toEqual({ state: 'incomplete' });
  });
});

describe('judgeRequestHead', () => {
  it('allows CONNECT to an allowlisted host on 443, comparing names case-insensitively', () => {
    expect(judgeRequestHead(connectHead('api.anthropic.com:443'), CLAUDE)).toEqual({ allowed: true, host: 'api.anthropic.com', port: 443 });
    expect(judgeRequestHead(connectHead('API.Anthropic.COM:443'), CLAUDE)).toEqual({ allowed: true, host: 'api.anthropic.com', port: 443 });
  });

  it('refuses another host, and allows the same request once that host is allowlisted', () => {
    expect(judgeRequestHead(connectHead('example.com:443'), CLAUDE)).toEqual({
      allowed: false,
      denial: { host: 'example.com', port: 443, reason: 'host_not_allowed' },
    });
    expect(judgeRequestHead(connectHead('example.com:443'), new Set(['example.com'])).allowed).toBe(true);
  });

  it('matches names exactly: no suffix, prefix or trailing-dot variant passes', () => {
    for (const host of ['api.anthropic.com.evil.test', 'evil-api.anthropic.com', 'x.api.anthropic.com', 'api.anthropic.com.', 'anthropic.com']) {
      expect(judgeRequestHead(connectHead(`${host}:443`), CLAUDE)).toMatchObject({ allowed: false, denial: { reason: 'host_not_allowed' } });
    }
  });

  it('refuses IP literals, v4 and v6, where the same request by name passes', () => {
    expect(judgeRequestHead(connectHead('160.79.104.10:443'), CLAUDE)).toEqual({
      allowed: false,
      denial: { host: '160.79.104.10', port: 443, reason: 'ip_literal' },
    });
    expect(judgeRequestHead(connectHead('[2607:6bc0::10]:443'), CLAUDE)).toEqual({
      allowed: false,
      denial: { host: '2607:6bc0::10', port: 443, reason: 'ip_literal' },
    });
    expect(judgeRequestHead(connectHead('api.anthropic.com:443'), CLAUDE).allowed).toBe(true);
  });

  it('refuses every port but 443 on an allowed host', () => {
    for (const port of [80, 8443, 22, 444]) {
      expect(judgeRequestHead(connectHead(`api.anthropic.com:${port}`), CLAUDE)).toEqual({
        allowed: false,
        denial: { host: 'api.anthropic.com', port, reason: 'port_not_allowed' },
      });
    }
  });

  it('refuses plain proxy requests and other methods, naming where they wanted to go', () => {
    expect(judgeRequestHead('GET http://api.anthropic.com/v1/messages HTTP/1.1\r\nHost: api.anthropic.com', CLAUDE)).toEqual({
      allowed: false,
      denial: { host: 'api.anthropic.com', port: null, reason: 'method_not_connect' },
    });
    expect(judgeRequestHead('POST http://example.com:8080/ HTTP/1.1', CLAUDE)).toEqual({
      allowed: false,
      denial: { host: 'example.com', port: 8080, reason: 'method_not_connect' },
    });
    // Methods are case-sensitive (RFC 9110): `connect` is not CONNECT.
    expect(judgeRequestHead('connect api.anthropic.com:443 HTTP/1.1', CLAUDE)).toMatchObject({ allowed: false, denial: { reason: 'method_not_connect' } });
    expect(judgeRequestHead('GET / HTTP/1.1\r\nHost: api.anthropic.com', CLAUDE)).toEqual({
      allowed: false,
      denial: { host: null, port: null, reason: 'method_not_connect' },
    });
  });

  it('refuses heads that are not one well-formed request line with host:port', () => {
    const malformed = [
      'CONNECT api.anthropic.com HTTP/1.1',
      'CONNECT api.anthropic.com:99999 HTTP/1.1',
      'CONNECT api.anthropic.com:0 HTTP/1.1',
      'CONNECT api.anthropic.com:443 HTTP/2.0',
      'CONNECT  api.anthropic.com:443 HTTP/1.1',
      'CONNECT user@api.anthropic.com:443:443 HTTP/1.1',
      '\x16\x03\x01\x02\x00',
      '',
    ];
    for (const head of malformed) {
      expect(judgeRequestHead(head, CLAUDE), JSON.stringify(head)).toEqual({ allowed: false, denial: { host: null, port: null, reason: 'malformed_request' } });
    }
  });
});
