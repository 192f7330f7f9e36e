import { describe, expect, it } from 'vitest';
import { LEGACY_LOOPBACK_ROUTES, loopbackRoutesOf } from '../../../../main/sandbox/egress/loopback-routes';
import { containmentDigest, EgressRuleSchema, type ContainmentTemplate } from '../../../../shared/sandbox/containment-policy';

const TEMPLATE: ContainmentTemplate = {
  backend: 'bubblewrap',
  read_only: ['toolchain'],
  read_write: ['worktree'],
  tmpfs: [],
  env_names: ['PATH'],
  egress: { kind: 'loopback', host: '127.0.0.1', port: 11434 },
  cwd: 'worktree',
};
const TAGS = { method: 'GET', path: '/api/tags' } as const;
const RESPONSES = { method: 'POST', path: '/v1/responses' } as const;

describe('loopback routes in the egress rule', () => {
  it('binds the routes in the policy digest as a set; a rule without them keeps the digest it always had', () => {
    const withRoutes = (routes: (typeof TAGS | typeof RESPONSES)[]): ContainmentTemplate => ({ ...TEMPLATE, egress: { ...TEMPLATE.egress, routes } as ContainmentTemplate['egress'] });
    expect(containmentDigest(withRoutes([TAGS, RESPONSES]))).toBe(containmentDigest(withRoutes([RESPONSES, TAGS])));
    expect(containmentDigest(withRoutes([TAGS, RESPONSES]))).not.toBe(containmentDigest(withRoutes([TAGS])));
    expect(containmentDigest(withRoutes([TAGS]))).not.toBe(containmentDigest(TEMPLATE));
    // What the code before routes computed for this template (commit 4064c7f): old contracts still verify.
    expect(containmentDigest(TEMPLATE)).toBe('sha256:0dcca5865a5e981e1e2f5d207b8079b7d082e6687f812b439bbe9660880c7368');
    expect(EgressRuleSchema.parse(TEMPLATE.egress)).toEqual(TEMPLATE.egress);
  });

  it('an old rule without routes means the inference routes only, never a model pull', () => {
    expect(loopbackRoutesOf({ kind: 'loopback', host: '127.0.0.1', port: 11434 })).toBe(LEGACY_LOOPBACK_ROUTES);
    expect(LEGACY_LOOPBACK_ROUTES.map((route) => `${route.method} ${route.path}`)).not.toContain('POST /api/pull');
    expect(loopbackRoutesOf({ kind: 'loopback', host: '127.0.0.1', port: 11434, routes: [TAGS] })).toEqual([TAGS]);
  });

  it('refuses a route that is not one method and one exact path', () => {
    for (const route of [
      { method: 'DELETE', path: '/api/delete' },
      { method: 'GET', path: 'api/tags' },
      { method: 'GET', path: '/api/tags?x=1' },
      { method: 'GET', path: '/api/tags#x' },
      { method: 'GET', path: '/api/t ags' },
      { method: 'GET', path: `/${'a'.repeat(300)}` },
    ]) {
      expect(EgressRuleSchema.safeParse({ kind: 'loopback', host: '127.0.0.1', port: 1, routes: [route] }).success, JSON.stringify(route)).toBe(false);
    }
    expect(EgressRuleSchema.safeParse({ kind: 'loopback', host: '127.0.0.1', port: 1, routes: [] }).success).toBe(false);
  });
});
