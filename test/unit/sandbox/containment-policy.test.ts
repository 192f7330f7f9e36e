import { describe, expect, it } from 'vitest';
import { isCitadelError } from '../../../shared/errors';
import {
  containmentDigest,
  ContainmentPolicySchema,
  ContainmentTemplateSchema,
  parseContainmentPolicy,
  resolveContainment,
  type ContainmentPolicy,
  type ContainmentTemplate,
} from '../../../shared/sandbox/containment-policy';

const POLICY: ContainmentPolicy = {
  backend: 'bubblewrap',
  read_only: ['/opt/toolchain', '/fork/repo/.git'],
  read_write: ['/fork/worktree', '/fork/home'],
  tmpfs: ['/scratch'],
  env: { PATH: '/usr/bin:/bin', HOME: '/fork/home' },
  egress: { kind: 'loopback', host: '127.0.0.1', port: 11434, socket: '/fork/egress.sock' },
  cwd: '/fork/worktree',
};

const TEMPLATE: ContainmentTemplate = {
  backend: 'bubblewrap',
  read_only: ['toolchain', 'git-metadata'],
  read_write: ['worktree', 'runtime-home'],
  tmpfs: [],
  env_names: ['PATH', 'HOME', 'ANTHROPIC_API_KEY'],
  egress: { kind: 'cloud', hosts: ['api.anthropic.com', 'statsig.anthropic.com'] },
  cwd: 'worktree',
};

/** The rules a policy breaks, as `path rule` pairs. */
function refusals(input: unknown): string[] {
  try {
    parseContainmentPolicy(input);
    return [];
  } catch (error) {
    if (!isCitadelError(error) || error.code !== 'LAUNCH_SPEC_INVALID') throw error;
    return (error.violations ?? []).map((v) => `${v.path} ${v.rule}`);
  }
}

describe('containment policy schema', () => {
  it('accepts a complete policy', () => {
    expect(parseContainmentPolicy(POLICY)).toEqual(POLICY);
  });

  it.each([
    ['a relative root', { read_only: ['opt/toolchain'] }, '$.read_only[0] not_normal_absolute'],
    ['a ".." segment', { read_write: ['/fork/worktree/../home'] }, '$.read_write[0] not_normal_absolute'],
    ['a "." segment', { read_write: ['/fork/./worktree'] }, '$.read_write[0] not_normal_absolute'],
    ['a trailing slash', { tmpfs: ['/scratch/'] }, '$.tmpfs[0] not_normal_absolute'],
    ['a double slash', { tmpfs: ['//scratch'] }, '$.tmpfs[0] not_normal_absolute'],
    ['the filesystem root', { read_only: ['/'] }, '$.read_only[0] not_normal_absolute'],
    ['a NUL byte in a path', { read_only: ['/opt/a\0b'] }, '$.read_only[0] nul_byte'],
    ['one root both read-only and read-write', { read_only: ['/fork/worktree'] }, '$.read_write[0] duplicate'],
    ['a root listed twice', { tmpfs: ['/scratch', '/scratch'] }, '$.tmpfs[1] duplicate'],
    ['a cwd outside every root', { cwd: '/fork' }, '$.cwd cwd_outside_roots'],
    ['a cwd that only shares a prefix with a root', { cwd: '/fork/worktree-2' }, '$.cwd cwd_outside_roots'],
    ['an environment name with "="', { env: { 'A=B': 'x' } }, '$.env["A=B"] invalid_value'],
    ['a NUL byte in an environment value', { env: { A: 'x\0y' } }, '$.env.A nul_byte'],
    ['loopback egress without its bridge socket', { egress: { kind: 'loopback', host: '127.0.0.1', port: 11434 } }, '$.egress.socket missing_field'],
    ['a loopback egress to another host', { egress: { kind: 'loopback', host: '10.0.0.1', port: 1, socket: '/s' } }, '$.egress.host invalid_value'],
    ['port 0', { egress: { kind: 'loopback', host: '::1', port: 0, socket: '/s' } }, '$.egress.port too_small'],
    ['a cloud egress without hosts', { egress: { kind: 'cloud', hosts: [], socket: '/s' } }, '$.egress.hosts too_few_items'],
    ['a cloud host with a scheme', { egress: { kind: 'cloud', hosts: ['https://api.openai.com'], socket: '/s' } }, '$.egress.hosts[0] pattern_mismatch'],
    ['a cloud host given as an IP address', { egress: { kind: 'cloud', hosts: ['104.18.0.1'], socket: '/s' } }, '$.egress.hosts[0] ip_literal'],
    ['a cloud host without a domain', { egress: { kind: 'cloud', hosts: ['intranet'], socket: '/s' } }, '$.egress.hosts[0] pattern_mismatch'],
    ['an unknown backend', { backend: 'docker' }, '$.backend invalid_value'],
    ['an unknown field', { network: 'host' }, '$.network unknown_field'],
  ])('refuses %s', (_name, change, expected) => {
    expect(refusals({ ...POLICY, ...change })).toContain(expected);
  });

  it('allows a read-only root nested inside a read-write one (a .git inside the worktree)', () => {
    expect(ContainmentPolicySchema.safeParse({ ...POLICY, read_only: ['/fork/worktree/.git'] }).success).toBe(true);
  });
});

describe('containment template', () => {
  it('refuses a cwd that names no root, and names listed twice', () => {
    const result = ContainmentTemplateSchema.safeParse({ ...TEMPLATE, cwd: 'parent', read_only: ['worktree'], env_names: ['PATH', 'PATH'] });
    expect(result.success).toBe(false);
    const issues = result.error?.issues.map((issue) => `${issue.path.join('.')} ${String((issue as { params?: { rule?: string } }).params?.rule)}`);
    expect(issues).toEqual(expect.arrayContaining(['cwd unknown_root', 'read_write.0 duplicate', 'env_names.1 duplicate']));
  });

  it('resolves names to host paths, picks only the named environment and adds the bridge socket', () => {
    const policy = resolveContainment(TEMPLATE, {
      roots: { toolchain: '/opt/node', 'git-metadata': '/f/repo/.git', worktree: '/f/wt', 'runtime-home': '/f/home', unused: '/elsewhere' },
      env: { PATH: '/usr/bin', HOME: '/f/home', OPENAI_API_KEY: 'not-named', ANTHROPIC_API_KEY: undefined },
      egressSocket: '/f/egress.sock',
    });
    expect(policy).toEqual({
      backend: 'bubblewrap',
      read_only: ['/opt/node', '/f/repo/.git'],
      read_write: ['/f/wt', '/f/home'],
      tmpfs: [],
      env: { PATH: '/usr/bin', HOME: '/f/home' },
      egress: { kind: 'cloud', hosts: ['api.anthropic.com', 'statsig.anthropic.com'], socket: '/f/egress.sock' },
      cwd: '/f/wt',
    });
  });

  it('refuses a root without a path, a missing bridge socket and a resolved path that is not absolute', () => {
    const roots = { toolchain: '/opt/node', 'git-metadata': '/f/.git', worktree: '/f/wt', 'runtime-home': '/f/home' };
    const codeOf = (run: () => unknown): string | undefined => {
      try {
        run();
        return undefined;
      } catch (error) {
        return isCitadelError(error) ? `${error.code} ${JSON.stringify(error.details ?? error.violations?.map((v) => v.path))}` : String(error);
      }
    };
    const withoutHome = { toolchain: roots.toolchain, 'git-metadata': roots['git-metadata'], worktree: roots.worktree };
    expect(codeOf(() => resolveContainment(TEMPLATE, { roots: withoutHome, env: {}, egressSocket: '/s' }))).toBe('LAUNCH_SPEC_INVALID {"root":"runtime-home"}');
    expect(codeOf(() => resolveContainment(TEMPLATE, { roots, env: {}, egressSocket: null }))).toBe('LAUNCH_SPEC_INVALID {"egress":"cloud"}');
    expect(codeOf(() => resolveContainment(TEMPLATE, { roots: { ...roots, worktree: 'wt' }, env: {}, egressSocket: '/s' }))).toBe(
      'LAUNCH_SPEC_INVALID ["$.read_write[0]","$.cwd"]',
    );
  });
});

describe('containment digest', () => {
  it('is pinned, so a change to the canonical form cannot pass unnoticed', () => {
    expect(containmentDigest(TEMPLATE)).toBe(PINNED_DIGEST);
  });

  it('does not depend on the order of roots, names or cloud hosts', () => {
    const reordered: ContainmentTemplate = {
      cwd: 'worktree',
      egress: { hosts: ['statsig.anthropic.com', 'api.anthropic.com'], kind: 'cloud' },
      env_names: ['ANTHROPIC_API_KEY', 'HOME', 'PATH'],
      tmpfs: [],
      read_write: ['runtime-home', 'worktree'],
      read_only: ['git-metadata', 'toolchain'],
      backend: 'bubblewrap',
    };
    expect(containmentDigest(reordered)).toBe(containmentDigest(TEMPLATE));
  });

  it.each([
    ['the backend', { backend: 'seatbelt' }],
    ['a root moved from read-only to read-write', { read_only: ['toolchain'], read_write: ['worktree', 'runtime-home', 'git-metadata'] }],
    ['an environment name', { env_names: ['PATH', 'HOME'] }],
    ['the egress', { egress: { kind: 'none' } }],
    ['the cwd', { cwd: 'runtime-home' }],
  ] as const)('changes with %s', (_name, change) => {
    expect(containmentDigest({ ...TEMPLATE, ...change } as ContainmentTemplate)).not.toBe(containmentDigest(TEMPLATE));
  });
});

// Computed independently: SHA-256 of the sorted-key JSON of TEMPLATE with every list sorted.
const PINNED_DIGEST = 'sha256:5dfec46a45998e164af16ba607d26bb1eff96f873368aea5ccdb796792a3472b';

describe('roots of several paths and read-only file binds (issue 11: toolchain, git metadata, seeded runtime home)', () => {
  it('resolves a name bound to several paths to each of them, and carries the file binds', () => {
    const policy = resolveContainment(TEMPLATE, {
      roots: { toolchain: ['/opt/node', '/opt/claude'], 'git-metadata': ['/f/b.git', '/f/base.git/objects'], worktree: '/f/wt', 'runtime-home': '/f/home' },
      env: {},
      egressSocket: '/f/egress.sock',
      readOnlyFiles: [{ source: '/root/.claude/.credentials.json', target: '/f/home/claude/.credentials.json' }],
    });
    expect(policy.read_only).toEqual(['/opt/node', '/opt/claude', '/f/b.git', '/f/base.git/objects']);
    expect(policy.read_only_files).toEqual([{ source: '/root/.claude/.credentials.json', target: '/f/home/claude/.credentials.json' }]);
  });

  it('refuses a cwd root of several paths, and a file target outside every root or on a root itself', () => {
    expect(() =>
      resolveContainment(TEMPLATE, { roots: { toolchain: '/t', 'git-metadata': '/g', worktree: ['/a', '/b'], 'runtime-home': '/h' }, env: {}, egressSocket: '/s' }),
    ).toThrow(/must be one path/);
    expect(refusals({ ...POLICY, read_only_files: [{ source: '/root/cred', target: '/elsewhere/cred' }] })).toEqual(['$.read_only_files[0].target target_outside_roots']);
    expect(refusals({ ...POLICY, read_only_files: [{ source: '/root/cred', target: '/fork/home' }] })).toEqual(['$.read_only_files[0].target target_outside_roots']);
    expect(refusals({ ...POLICY, read_only_files: [{ source: '/root/cred', target: '/fork/home/cred' }] })).toEqual([]);
  });
});
