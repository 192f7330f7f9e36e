import { describe, expect, it } from 'vitest';
import { egressInside, INNER_PROXY_PORT } from '../../../../main/sandbox/egress/egress-environment';

describe('egressInside', () => {
  it('points a cloud runtime at the inner proxy with no proxy exceptions', () => {
    const inside = egressInside({ kind: 'cloud', hosts: ['api.anthropic.com'] });
    expect(inside).toEqual({
      listenPort: INNER_PROXY_PORT,
      env: {
        HTTPS_PROXY: `http://127.0.0.1:${INNER_PROXY_PORT}`,
        https_proxy: `http://127.0.0.1:${INNER_PROXY_PORT}`,
        NO_PROXY: '',
        no_proxy: '',
      },
      providerAuthority: null,
    });
  });

  it('keeps a local provider on its own port inside, so profile URLs need no rewrite', () => {
    expect(egressInside({ kind: 'loopback', host: 'localhost', port: 11434 })).toEqual({
      listenPort: 11434,
      env: {},
      providerAuthority: '127.0.0.1:11434',
    });
    expect(egressInside({ kind: 'loopback', host: '::1', port: 1234 }).providerAuthority).toBe('127.0.0.1:1234');
  });
});
