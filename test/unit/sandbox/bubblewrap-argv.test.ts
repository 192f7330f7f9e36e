import { describe, expect, it } from 'vitest';
import { bubblewrapLauncher, type HostTopLevel } from '../../../main/sandbox/bubblewrap';
import { sandboxFilterProgram } from '../../../main/sandbox/seccomp/sandbox-filter';
import type { ContainmentPolicy } from '../../../shared/sandbox/containment-policy';

const MERGED_USR: HostTopLevel[] = [
  { path: '/bin', symlink: 'usr/bin' },
  { path: '/lib', symlink: 'usr/lib' },
  { path: '/lib64', symlink: 'usr/lib64' },
  { path: '/sbin', symlink: 'usr/sbin' },
];
const launcher = bubblewrapLauncher({ executable: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0', topLevel: MERGED_USR, arch: 'x64' });

const POLICY: ContainmentPolicy = {
  backend: 'bubblewrap',
  read_only: ['/opt/node', '/fork/wt/.git'],
  read_write: ['/fork/wt', '/fork/home'],
  tmpfs: ['/fork/wt/node_modules/.cache'],
  env: { PATH: '/opt/node/bin:/usr/bin:/bin', HOME: '/fork/home', LANG: 'C.UTF-8' },
  egress: { kind: 'loopback', host: '127.0.0.1', port: 11434, socket: '/fork/egress.sock' },
  cwd: '/fork/wt',
};
const COMMAND = { command: '/opt/node/bin/node', args: ['--test', 'a b', '$(touch /x)'] };

describe('bubblewrap launch spec', () => {
  it('is exactly the measured recipe, as a literal argv', () => {
    const launch = launcher.launchSpec(POLICY, COMMAND, '/fork/launch/b1');
    expect(launch.command).toBe('/usr/bin/bwrap');
    expect(launch.args).toEqual([
      ...['--unshare-all', '--unshare-user', '--die-with-parent', '--new-session'],
      ...['--uid', '1000', '--gid', '1000', '--cap-drop', 'ALL'],
      ...['--seccomp', '3'],
      ...['--ro-bind', '/usr', '/usr'],
      ...['--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/sbin', '/sbin'],
      ...['--ro-bind-try', '/etc/hosts', '/etc/hosts'],
      ...['--ro-bind-try', '/etc/nsswitch.conf', '/etc/nsswitch.conf'],
      ...['--ro-bind-try', '/etc/ssl/certs', '/etc/ssl/certs'],
      ...['--ro-bind-try', '/etc/ssl/openssl.cnf', '/etc/ssl/openssl.cnf'],
      ...['--ro-bind-try', '/etc/ca-certificates', '/etc/ca-certificates'],
      ...['--ro-bind-try', '/etc/localtime', '/etc/localtime'],
      ...['--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache'],
      ...['--ro-bind-try', '/etc/ld.so.conf', '/etc/ld.so.conf'],
      ...['--ro-bind-try', '/etc/ld.so.conf.d', '/etc/ld.so.conf.d'],
      ...['--ro-bind-try', '/etc/alternatives', '/etc/alternatives'],
      ...['--ro-bind', '/fork/launch/b1/etc/passwd', '/etc/passwd'],
      ...['--ro-bind', '/fork/launch/b1/etc/group', '/etc/group'],
      ...['--ro-bind', '/fork/launch/b1/etc/resolv.conf', '/etc/resolv.conf'],
      ...['--proc', '/proc', '--dev', '/dev'],
      ...['--tmpfs', '/tmp', '--tmpfs', '/var/tmp', '--tmpfs', '/run'],
      // Parents before children: the .git and the cache stay what the policy says inside the worktree.
      ...['--ro-bind', '/fork/egress.sock', '/fork/egress.sock'],
      ...['--bind', '/fork/home', '/fork/home'],
      ...['--bind', '/fork/wt', '/fork/wt'],
      ...['--ro-bind', '/fork/wt/.git', '/fork/wt/.git'],
      ...['--tmpfs', '/fork/wt/node_modules/.cache'],
      ...['--ro-bind', '/opt/node', '/opt/node'],
      ...['--remount-ro', '/'],
      ...['--chdir', '/fork/wt'],
      '--',
      '/opt/node/bin/node',
      '--test',
      'a b',
      '$(touch /x)',
    ]);
  });

  it('writes generated passwd, group and resolv.conf into the launch directory', () => {
    const files = launcher.launchSpec(POLICY, COMMAND, '/fork/launch/b1').files;
    expect(files.map((file) => file.path)).toEqual(['/fork/launch/b1/etc/passwd', '/fork/launch/b1/etc/group', '/fork/launch/b1/etc/resolv.conf', '/fork/launch/b1/seccomp.bpf']);
    expect(files[0]).toHaveProperty('text', 'citadel:x:1000:1000:Citadel sandbox:/fork/home:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n');
    expect(files[2]).toHaveProperty('text', 'options timeout:0 attempts:1\n');
  });

  it('writes the sandbox seccomp program of its architecture and hands it to bwrap as fd 3', () => {
    const launch = launcher.launchSpec(POLICY, COMMAND, '/fork/launch/b1');
    expect(launch.files.at(-1)).toEqual({ path: '/fork/launch/b1/seccomp.bpf', bytes: sandboxFilterProgram('x64') });
    expect(launch.fdFiles).toEqual(['/fork/launch/b1/seccomp.bpf']);
    expect(launch.args.slice(launch.args.indexOf('--seccomp'), launch.args.indexOf('--seccomp') + 2)).toEqual(['--seccomp', '3']);
    const arm = bubblewrapLauncher({ executable: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0', topLevel: MERGED_USR, arch: 'arm64' });
    expect(arm.launchSpec(POLICY, COMMAND, '/l').files.at(-1)).toEqual({ path: '/l/seccomp.bpf', bytes: sandboxFilterProgram('arm64') });
  });

  it('drops every capability and maps to a non-zero uid, so a root operator gets an unprivileged sandbox', () => {
    const args = launcher.launchSpec(POLICY, COMMAND, '/l').args;
    const after = (flag: string): string | undefined => args[args.indexOf(flag) + 1];
    expect(after('--cap-drop')).toBe('ALL');
    expect(after('--uid')).toBe('1000');
    expect(after('--gid')).toBe('1000');
    expect(args).not.toContain('--disable-userns');
  });

  it('carries exactly the policy environment as the spawn environment, never in the argv', () => {
    const launch = launcher.launchSpec({ ...POLICY, env: { ONLY: 'this' } }, COMMAND, '/l');
    expect(launch.env).toEqual({ ONLY: 'this' });
    expect(launch.args).not.toContain('--setenv');
    expect(launch.args).not.toContain('--clearenv');
  });

  it('puts no value of the policy environment anywhere in the argv (an argv is readable by every local user)', () => {
    const secrets = { ANTHROPIC_API_KEY: 'sk-ant-test-argv-1', OPENAI_API_KEY: 'sk-test-argv-2', CLAUDE_CODE_OAUTH_TOKEN: 'oauth-test-argv-3' };
    const launch = launcher.launchSpec({ ...POLICY, env: { ...POLICY.env, ...secrets } }, COMMAND, '/l');
    expect(launch.env).toEqual({ ...POLICY.env, ...secrets });
    const argv = [launch.command, ...launch.args].join('\0');
    for (const value of Object.values(secrets)) expect(argv).not.toContain(value);
    for (const name of Object.keys(secrets)) expect(argv).not.toContain(name);
  });

  it('is the same argv for the same policy, whatever order its lists and environment come in', () => {
    const reordered: ContainmentPolicy = {
      ...POLICY,
      read_only: [...POLICY.read_only].reverse(),
      read_write: [...POLICY.read_write].reverse(),
      env: { LANG: 'C.UTF-8', PATH: '/opt/node/bin:/usr/bin:/bin', HOME: '/fork/home' },
    };
    expect(launcher.launchSpec(reordered, COMMAND, '/l')).toEqual(launcher.launchSpec(POLICY, COMMAND, '/l'));
  });

  it('binds real top-level directories on a host without merged /usr, and skips absent ones', () => {
    const split = bubblewrapLauncher({ executable: '/usr/bin/bwrap', version: 'v', topLevel: [{ path: '/bin', symlink: null }, { path: '/lib', symlink: null }], arch: 'x64' });
    const args = split.launchSpec(POLICY, COMMAND, '/l').args;
    expect(args.join(' ')).toContain('--ro-bind /usr /usr --ro-bind /bin /bin --ro-bind /lib /lib --ro-bind-try /etc/hosts');
    expect(args).not.toContain('/lib64');
  });

  it('binds no socket when there is no egress', () => {
    const args = launcher.launchSpec({ ...POLICY, egress: { kind: 'none' } }, COMMAND, '/l').args;
    expect(args).not.toContain('/fork/egress.sock');
  });

  it('refuses another backend’s policy and a relative launch directory', () => {
    expect(() => launcher.launchSpec({ ...POLICY, backend: 'seatbelt' }, COMMAND, '/l')).toThrow(TypeError);
    expect(() => launcher.launchSpec(POLICY, COMMAND, 'launch')).toThrow(TypeError);
  });
});

describe('bubblewrap read-only file binds', () => {
  it('binds each file read-only at its target, after the root that holds it', () => {
    const launch = launcher.launchSpec({ ...POLICY, read_only_files: [{ source: '/root/.codex/auth.json', target: '/fork/home/codex/auth.json' }] }, COMMAND, '/fork/launch/b1');
    const home = launch.args.findIndex((arg, i) => arg === '--bind' && launch.args[i + 1] === '/fork/home');
    const file = launch.args.findIndex((arg, i) => arg === '--ro-bind' && launch.args[i + 1] === '/root/.codex/auth.json');
    expect(home).toBeGreaterThan(-1);
    expect(launch.args.slice(file, file + 3)).toEqual(['--ro-bind', '/root/.codex/auth.json', '/fork/home/codex/auth.json']);
    expect(file).toBeGreaterThan(home);
  });
});
