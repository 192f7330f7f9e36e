import path from 'node:path';
import { CitadelError } from '../../shared/errors';
import type { ContainmentPolicy } from '../../shared/sandbox/containment-policy';
import { isExecutableFile, runProbe } from './probe-command';
import { assertPolicyBackend, sandboxUnavailable, type SandboxBackend, type SandboxLauncher } from './sandbox-backend';

// Fixed paths: a sandbox launcher found through PATH could be anyone's.
const SANDBOX_EXEC = '/usr/bin/sandbox-exec';
const SW_VERS = '/usr/bin/sw_vers';

/** What any process needs to start on macOS: the system, dyld's cache, time zones, TLS roots. */
const SYSTEM_READ_SUBPATHS = ['/usr', '/bin', '/sbin', '/System', '/private/var/db/dyld', '/private/var/db/timezone', '/private/etc/ssl'];
const SYSTEM_READ_LITERALS = ['/dev/null', '/dev/zero', '/dev/random', '/dev/urandom', '/private/etc/hosts', '/private/etc/localtime'];
/** The top-level symlinks (`/etc`, `/tmp`, `/var` point into `/private`) a path lookup passes. */
const SYSTEM_METADATA_LITERALS = ['/', '/private', '/etc', '/tmp', '/var'];

/**
 * The Seatbelt profile for a policy: deny by default, read the system and the read-only roots,
 * read and write the read-write roots, connect only to the egress bridge's socket. Paths must be
 * real paths (`/private/tmp/…`, not `/tmp/…`): Seatbelt matches the resolved path. Unverified on
 * a Mac: the text is unit-tested only.
 */
export function seatbeltProfile(policy: ContainmentPolicy): string {
  if (policy.tmpfs.length > 0) {
    throw new CitadelError('LAUNCH_SPEC_INVALID', 'Seatbelt has no private tmpfs: point TMPDIR into a read-write root instead', {
      details: { tmpfs: policy.tmpfs },
    });
  }
  if ((policy.read_only_files ?? []).length > 0) {
    // Seatbelt filters paths, it cannot mount: a file can only be seen where it already is.
    throw new CitadelError('LAUNCH_SPEC_INVALID', 'Seatbelt cannot show a file at another path (a seeded runtime home)', {
      details: { read_only_files: (policy.read_only_files ?? []).map((file) => file.target) },
    });
  }
  const roots = [...policy.read_only, ...policy.read_write];
  const ancestors = [...new Set(roots.flatMap(ancestorsOf))].sort();
  const lines = [
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
    rule('allow file-read-metadata', [...SYSTEM_METADATA_LITERALS, ...ancestors].map(literal)),
    rule('allow file-read*', [...SYSTEM_READ_SUBPATHS.map(subpath), ...SYSTEM_READ_LITERALS.map(literal)]),
    '(allow file-write-data (literal "/dev/null"))',
    ...(policy.read_only.length > 0 ? [rule('allow file-read*', [...policy.read_only].sort().map(subpath))] : []),
    ...(policy.read_write.length > 0 ? [rule('allow file-read* file-write*', [...policy.read_write].sort().map(subpath))] : []),
    ...(policy.egress.kind === 'none' ? [] : [`(allow network-outbound (remote unix-socket (path-literal ${quote(policy.egress.socket)})))`]),
  ];
  return `${lines.join('\n')}\n`;
}

export function seatbeltLauncher(host: { executable: string; version: string }): SandboxLauncher {
  return {
    backend: 'seatbelt',
    executable: host.executable,
    version: host.version,
    launchSpec(policy, command) {
      assertPolicyBackend('seatbelt', policy);
      // sandbox-exec cannot change directory: the caller spawns it with cwd = policy.cwd. No
      // `env -i K=V`: the values would sit in the argv, readable by every local user; the caller
      // spawns sandbox-exec with exactly `env`, which it passes on to the command.
      const env = Object.fromEntries(Object.entries(policy.env).sort(([a], [b]) => (a < b ? -1 : 1)));
      return { command: host.executable, args: ['-p', seatbeltProfile(policy), command.command, ...command.args], files: [], env, fdFiles: [] };
    },
  };
}

export const seatbeltBackend: SandboxBackend = {
  id: 'seatbelt',
  platforms: ['darwin'],
  async probe() {
    if (!(await isExecutableFile(SANDBOX_EXEC))) throw sandboxUnavailable('seatbelt', `${SANDBOX_EXEC} is missing`, 'sandbox-exec ships with macOS');
    const trial = await runProbe(SANDBOX_EXEC, ['-p', '(version 1)(allow default)', '/usr/bin/true']);
    if (!trial.ok) throw sandboxUnavailable('seatbelt', `a trial sandbox-exec failed: ${trial.stderr.trim() || 'no output'}`, null);
    const productVersion = (await runProbe(SW_VERS, ['-productVersion'])).stdout.trim();
    return seatbeltLauncher({ executable: SANDBOX_EXEC, version: productVersion === '' ? 'macOS' : `macOS ${productVersion}` });
  },
};

function ancestorsOf(p: string): string[] {
  const found: string[] = [];
  for (let dir = path.posix.dirname(p); dir !== '/'; dir = path.posix.dirname(dir)) found.push(dir);
  return found;
}

function rule(head: string, filters: readonly string[]): string {
  return `(${head}\n${filters.map((filter) => `  ${filter}`).join('\n')})`;
}

const literal = (p: string): string => `(literal ${quote(p)})`;
const subpath = (p: string): string => `(subpath ${quote(p)})`;

/** An SBPL string literal: backslash and double quote are the characters it escapes. */
function quote(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
