import { describe, expect, it } from 'vitest';
import { seatbeltLauncher, seatbeltProfile } from '../../../main/sandbox/seatbelt';
import { isCitadelError } from '../../../shared/errors';
import type { ContainmentPolicy } from '../../../shared/sandbox/containment-policy';

// Seatbelt cannot run on this machine: these tests pin the generated text only (unverified on a Mac).
const POLICY: ContainmentPolicy = {
  backend: 'seatbelt',
  read_only: ['/opt/homebrew/opt/node', '/Users/op/.citadel/forks/f1/repo/.git'],
  read_write: ['/Users/op/.citadel/forks/f1/worktrees/b1', '/Users/op/.citadel/forks/f1/homes/b1'],
  tmpfs: [],
  env: { PATH: '/opt/homebrew/opt/node/bin:/usr/bin:/bin', HOME: '/Users/op/.citadel/forks/f1/homes/b1' },
  egress: { kind: 'cloud', hosts: ['api.anthropic.com'], socket: '/Users/op/.citadel/forks/f1/egress/b1.sock' },
  cwd: '/Users/op/.citadel/forks/f1/worktrees/b1',
};

describe('seatbelt profile', () => {
  const profile = seatbeltProfile(POLICY);

  it('denies by default and allows only the system, the roots and the bridge socket', () => {
    expect(profile).toBe(
      [
        '(version 1)',
        '(deny default)',
        '(allow process-exec process-fork)',
        '(allow signal (target same-sandbox))',
        '(allow process-info* (target same-sandbox))',
        '(allow sysctl-read)',
        '(allow mach-host*)',
        '(allow user-preference-read)',
        '(allow ipc-posix-sem)',
        '(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo"))',
        '(allow file-read-metadata',
        '  (literal "/")',
        '  (literal "/private")',
        '  (literal "/etc")',
        '  (literal "/tmp")',
        '  (literal "/var")',
        '  (literal "/Users")',
        '  (literal "/Users/op")',
        '  (literal "/Users/op/.citadel")',
        '  (literal "/Users/op/.citadel/forks")',
        '  (literal "/Users/op/.citadel/forks/f1")',
        '  (literal "/Users/op/.citadel/forks/f1/homes")',
        '  (literal "/Users/op/.citadel/forks/f1/repo")',
        '  (literal "/Users/op/.citadel/forks/f1/worktrees")',
        '  (literal "/opt")',
        '  (literal "/opt/homebrew")',
        '  (literal "/opt/homebrew/opt"))',
        '(allow file-read*',
        '  (subpath "/usr")',
        '  (subpath "/bin")',
        '  (subpath "/sbin")',
        '  (subpath "/System")',
        '  (subpath "/private/var/db/dyld")',
        '  (subpath "/private/var/db/timezone")',
        '  (subpath "/private/etc/ssl")',
        '  (literal "/dev/null")',
        '  (literal "/dev/zero")',
        '  (literal "/dev/random")',
        '  (literal "/dev/urandom")',
        '  (literal "/private/etc/hosts")',
        '  (literal "/private/etc/localtime"))',
        '(allow file-write-data (literal "/dev/null"))',
        '(allow file-read*',
        '  (subpath "/Users/op/.citadel/forks/f1/repo/.git")',
        '  (subpath "/opt/homebrew/opt/node"))',
        '(allow file-read* file-write*',
        '  (subpath "/Users/op/.citadel/forks/f1/homes/b1")',
        '  (subpath "/Users/op/.citadel/forks/f1/worktrees/b1"))',
        '(allow network-outbound (remote unix-socket (path-literal "/Users/op/.citadel/forks/f1/egress/b1.sock")))',
        '',
      ].join('\n'),
    );
  });

  it('never allows the network, reads outside the roots or writes outside the read-write roots', () => {
    expect(profile).not.toMatch(/\(allow default\)|\(allow network\*|\(remote (ip|tcp)|\(allow file-read\*\)|\(allow file-write\*\)/);
    expect(profile).not.toContain('"/Users/op"))'); // the operator's home is a metadata literal only, never a subpath
    expect(seatbeltProfile({ ...POLICY, egress: { kind: 'none' } })).not.toContain('network');
  });

  it('escapes quotes and backslashes in paths, so a path cannot end its string and add a rule', () => {
    const text = seatbeltProfile({ ...POLICY, read_only: ['/opt/a"))(allow default)(x "\\'] });
    expect(text).toContain('(subpath "/opt/a\\"))(allow default)(x \\"\\\\")');
    expect(text).not.toContain('\n(allow default)');
  });

  it('refuses tmpfs roots: Seatbelt cannot give a private empty directory', () => {
    try {
      seatbeltProfile({ ...POLICY, tmpfs: ['/scratch'] });
      expect.unreachable();
    } catch (error) {
      expect(isCitadelError(error) && error.code).toBe('LAUNCH_SPEC_INVALID');
    }
  });
});

describe('seatbelt launch spec', () => {
  const launcher = seatbeltLauncher({ executable: '/usr/bin/sandbox-exec', version: 'macOS 15.1' });

  it('wraps the command in sandbox-exec, to be spawned with exactly the policy environment', () => {
    const launch = launcher.launchSpec(POLICY, { command: '/opt/homebrew/opt/node/bin/node', args: ['--test', 'a b'] }, '/unused');
    expect(launch).toEqual({
      command: '/usr/bin/sandbox-exec',
      args: ['-p', seatbeltProfile(POLICY), '/opt/homebrew/opt/node/bin/node', '--test', 'a b'],
      files: [],
      env: { HOME: '/Users/op/.citadel/forks/f1/homes/b1', PATH: '/opt/homebrew/opt/node/bin:/usr/bin:/bin' },
      // macOS has no kernel keyring to filter: Seatbelt hands nothing over as an fd.
      fdFiles: [],
    });
  });

  it('puts no value of the policy environment anywhere in the argv (an argv is readable by every local user)', () => {
    const secrets = { ANTHROPIC_API_KEY: 'sk-ant-test-argv-1', OPENAI_API_KEY: 'sk-test-argv-2', CLAUDE_CODE_OAUTH_TOKEN: 'oauth-test-argv-3' };
    const launch = launcher.launchSpec({ ...POLICY, env: { ...POLICY.env, ...secrets } }, { command: '/bin/true', args: [] }, '/unused');
    expect(launch.env).toEqual({ ...POLICY.env, ...secrets });
    const argv = [launch.command, ...launch.args].join('\0');
    for (const value of Object.values(secrets)) expect(argv).not.toContain(value);
    for (const name of Object.keys(secrets)) expect(argv).not.toContain(name);
  });

  it('refuses another backend’s policy', () => {
    expect(() => launcher.launchSpec({ ...POLICY, backend: 'bubblewrap' }, { command: '/bin/true', args: [] }, '/unused')).toThrow(TypeError);
  });
});

describe('seatbelt and file binds', () => {
  it('refuses a file seen at another path, which Seatbelt cannot mount (fail closed)', () => {
    const policy = { ...POLICY, read_only_files: [{ source: '/Users/op/.codex/auth.json', target: `${POLICY.read_write[1]}/codex/auth.json` }] };
    expect(() => seatbeltProfile(policy)).toThrow(expect.objectContaining({ code: 'LAUNCH_SPEC_INVALID' }) as Error);
  });
});
