import { describe, expect, it } from 'vitest';
import { bubblewrapLauncher } from '../../../main/sandbox/bubblewrap';
import { containedCommand } from '../../../main/sandbox/contained-command';
import type { SandboxCommand } from '../../../main/sandbox/sandbox-backend';
import type { ContainmentPolicy } from '../../../shared/sandbox/containment-policy';

const launcher = bubblewrapLauncher({ executable: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0', topLevel: [], arch: 'x64' });
const OPTIONS = { launchDir: '/fork/launch', innerBridgeScript: '/opt/citadel/out/cli/sandbox-inner-bridge.mjs', nodeExecPath: '/opt/node/bin/node' };
const COMMAND: SandboxCommand = { command: '/opt/claude/bin/claude', args: ['--print', 'a b'] };
const BASE: ContainmentPolicy = {
  backend: 'bubblewrap',
  read_only: ['/opt/claude'],
  read_write: ['/fork/wt'],
  tmpfs: [],
  env: { PATH: '/usr/bin', HTTPS_PROXY: 'http://inherited.example:8080' },
  egress: { kind: 'none' },
  cwd: '/fork/wt',
};

/** What follows bwrap's `--`: the command the sandbox starts. */
const inner = (args: readonly string[]): string[] => args.slice(args.indexOf('--') + 1);
/** No environment value may be in the argv: it is readable by every local user. */
const argvHoldsNone = (args: readonly string[], env: Record<string, string>): boolean =>
  !args.includes('--setenv') &&
  Object.entries(env).every(([name, value]) => !args.some((arg) => arg.startsWith(`${name}=`) || (value !== '' && arg === value)));

describe('containedCommand', () => {
  it('without egress is the backend launch of the command itself, with no bridge', () => {
    const contained = containedCommand(launcher, BASE, COMMAND, OPTIONS);
    expect(contained.bridge).toBeNull();
    expect(contained.command).toBe('/usr/bin/bwrap');
    expect(inner(contained.args)).toEqual(['/opt/claude/bin/claude', '--print', 'a b']);
    expect(contained.args).toEqual(launcher.launchSpec(BASE, COMMAND, OPTIONS.launchDir).args);
    expect(contained.env).toEqual(BASE.env);
    expect(contained.fdFiles).toEqual(['/fork/launch/seccomp.bpf']);
    expect(argvHoldsNone(contained.args, contained.env)).toBe(true);
  });

  it('a loopback provider: the inner bridge listens on the same port and starts the command; the bridge and Node are bound read-only', () => {
    const policy: ContainmentPolicy = { ...BASE, egress: { kind: 'loopback', host: '127.0.0.1', port: 11434, socket: '/fork/egress.sock' } };
    const contained = containedCommand(launcher, policy, COMMAND, OPTIONS);
    expect(contained.bridge).toEqual({ socket_path: '/fork/egress.sock', target: { kind: 'loopback', host: '127.0.0.1', port: 11434 } });
    expect(inner(contained.args)).toEqual([
      '/opt/node/bin/node',
      '/opt/citadel/out/cli/sandbox-inner-bridge.mjs',
      ...['--listen', '11434', '--socket', '/fork/egress.sock', '--', '/opt/claude/bin/claude', '--print', 'a b'],
    ]);
    const args = contained.args.join(' ');
    expect(args).toContain('--ro-bind /opt/citadel/out/cli /opt/citadel/out/cli');
    expect(args).toContain('--ro-bind /opt/node/bin /opt/node/bin');
    expect(args).toContain('--ro-bind /fork/egress.sock /fork/egress.sock');
    // A loopback provider needs no proxy: the environment stays the caller's.
    expect(contained.env).toEqual(BASE.env);
    // The bridge runs under the sandbox's seccomp filter too: the backend's fd files pass through.
    expect(contained.fdFiles).toEqual(['/fork/launch/seccomp.bpf']);
    expect(argvHoldsNone(contained.args, contained.env)).toBe(true);
  });

  it('a cloud runtime: the proxy variables point at the inner proxy and NO_PROXY is cleared', () => {
    const policy: ContainmentPolicy = { ...BASE, env: { ...BASE.env, NO_PROXY: 'api.example.test' }, egress: { kind: 'cloud', hosts: ['api.anthropic.com'], socket: '/fork/egress.sock' } };
    const contained = containedCommand(launcher, policy, COMMAND, OPTIONS);
    expect(contained.bridge).toEqual({ socket_path: '/fork/egress.sock', target: { kind: 'cloud', hosts: ['api.anthropic.com'] } });
    expect(inner(contained.args).slice(2, 4)).toEqual(['--listen', '3128']);
    expect(contained.env).toEqual({
      PATH: '/usr/bin',
      HTTPS_PROXY: 'http://127.0.0.1:3128',
      https_proxy: 'http://127.0.0.1:3128',
      NO_PROXY: '',
      no_proxy: '',
    });
    expect(argvHoldsNone(contained.args, contained.env)).toBe(true);
  });

  it('adds no root that a root of the policy already holds, and is deterministic', () => {
    const policy: ContainmentPolicy = { ...BASE, read_only: ['/opt'], egress: { kind: 'loopback', host: '127.0.0.1', port: 1234, socket: '/fork/egress.sock' } };
    const first = containedCommand(launcher, policy, COMMAND, OPTIONS);
    expect(first.args.filter((arg) => arg.startsWith('/opt')).slice(0, 2)).toEqual(['/opt', '/opt']);
    expect(first.args.join(' ')).not.toContain('--ro-bind /opt/node/bin');
    expect(containedCommand(launcher, policy, COMMAND, OPTIONS)).toEqual(first);
  });
});
