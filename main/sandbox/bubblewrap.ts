import { lstat, mkdtemp, readlink, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ContainmentPolicy } from '../../shared/sandbox/containment-policy';
import { generatedEtcFiles, HOST_ETC_ENTRIES, SANDBOX_GID, SANDBOX_UID, writeLaunchFiles } from './generated-etc';
import { findOnPath, runProbe } from './probe-command';
import { assertPolicyBackend, sandboxUnavailable, type SandboxBackend, type SandboxLauncher } from './sandbox-backend';
import { sandboxFilterProgram, seccompArchOf, type SeccompArch } from './seccomp/sandbox-filter';

const INSTALL = 'bubblewrap (apt-get install bubblewrap, dnf install bubblewrap)';
const SECCOMP_HINT = 'a kernel with seccomp filters (CONFIG_SECCOMP and CONFIG_SECCOMP_FILTER)';
const USERNS_HINT = 'enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0)';

/** A top-level directory as the host has it: merged-/usr hosts make `/bin` a symlink to `usr/bin`. */
export interface HostTopLevel {
  readonly path: string;
  /** The link target, or null for a real directory (bound read-only). */
  readonly symlink: string | null;
}

export interface BubblewrapHost {
  readonly executable: string;
  readonly version: string;
  readonly topLevel: readonly HostTopLevel[];
  /** Picks the syscall table of the seccomp filter. */
  readonly arch: SeccompArch;
  /** Host /proc files that list the kernel's keys by name (the filter stops reading them, not the listing): shown empty. */
  readonly keyListings?: readonly string[];
}

const TOP_LEVEL = ['/bin', '/lib', '/lib64', '/sbin'] as const;
const KEY_LISTINGS = ['/proc/keys', '/proc/key-users'] as const;
const PRIVATE_TMPFS = ['/tmp', '/var/tmp', '/run'] as const;

/** The seccomp program's fd in bwrap: the first after stdio (SandboxLaunch.fdFiles). */
const SECCOMP_FD = 3;

/**
 * The bubblewrap recipe measured in issue 11: every namespace unshared (so no network but a
 * private loopback), no process outliving the sandbox, no kernel keyring and none of the syscalls
 * that reach into another process (a seccomp filter, seccomp/sandbox-filter.ts), an empty root
 * with /usr and a few /etc entries read-only, private /tmp, /var/tmp and /run, and only the
 * policy's roots beside them.
 */
export function bubblewrapLauncher(host: BubblewrapHost): SandboxLauncher {
  return {
    backend: 'bubblewrap',
    executable: host.executable,
    version: host.version,
    launchSpec(policy, command, launchDir) {
      assertPolicyBackend('bubblewrap', policy);
      if (!path.isAbsolute(launchDir)) throw new TypeError(`launch directory must be absolute: ${launchDir}`);
      const generated = Object.entries(generatedEtcFiles(policy.env['HOME'] ?? policy.cwd)).map(([name, text]) => ({
        target: `/etc/${name}`,
        file: { path: path.join(launchDir, 'etc', name), text },
      }));
      const seccomp = { path: path.join(launchDir, 'seccomp.bpf'), bytes: sandboxFilterProgram(host.arch) };
      // An empty regular file: a bound /dev/null cannot be opened (bind mounts in a user namespace are nodev).
      const empty = { path: path.join(launchDir, 'empty'), text: '' };
      const keyListings = host.keyListings ?? [];
      const args = [
        // --unshare-user makes a missing user namespace an error instead of a silent fallback.
        ...['--unshare-all', '--unshare-user', '--die-with-parent', '--new-session'],
        // As root, the sandbox would otherwise keep every capability and could remount a read-only
        // bind writable (measured); a non-zero uid also keeps nested bwrap working, which
        // --cap-drop ALL alone breaks for root ("setting up uid map: Operation not permitted").
        ...['--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_GID), '--cap-drop', 'ALL'],
        // Without the filter the sandbox could read the operator's session keyring, and a tool could
        // take the runtime's stdout and forge its result (both measured). bwrap reads the fd and closes it.
        ...['--seccomp', String(SECCOMP_FD)],
        // No --clearenv/--setenv: the environment's values would sit in bwrap's argv, readable by
        // every local user. bwrap is spawned with exactly `env` and passes it on, adding only PWD
        // (= the --chdir directory), measured with bwrap 0.8.0.
        ...['--ro-bind', '/usr', '/usr'],
        ...host.topLevel.flatMap((dir) => (dir.symlink === null ? ['--ro-bind', dir.path, dir.path] : ['--symlink', dir.symlink, dir.path])),
        ...HOST_ETC_ENTRIES.flatMap((entry) => ['--ro-bind-try', entry, entry]),
        ...generated.flatMap(({ target, file }) => ['--ro-bind', file.path, target]),
        ...['--proc', '/proc', '--dev', '/dev'],
        ...keyListings.flatMap((file) => ['--ro-bind', empty.path, file]),
        ...PRIVATE_TMPFS.flatMap((dir) => ['--tmpfs', dir]),
        ...policyMounts(policy),
        // The empty root itself, once every mount point is made: a write outside the roots fails
        // loudly instead of landing in memory that vanishes.
        ...['--remount-ro', '/'],
        ...['--chdir', policy.cwd],
        '--',
        command.command,
        ...command.args,
      ];
      return {
        command: host.executable,
        args,
        files: [...generated.map(({ file }) => file), seccomp, ...(keyListings.length > 0 ? [empty] : [])],
        env: Object.fromEntries(Object.entries(policy.env).sort(([a], [b]) => (a < b ? -1 : 1))),
        fdFiles: [seccomp.path],
      };
    },
  };
}

/**
 * The policy's roots and egress socket, parents before children whatever order the policy lists
 * them in, so a read-only `.git` inside a read-write worktree stays read-only.
 */
function policyMounts(policy: ContainmentPolicy): string[] {
  const mounts: { path: string; flags: string[] }[] = [
    ...policy.read_only.map((p) => ({ path: p, flags: ['--ro-bind', p, p] })),
    ...policy.read_write.map((p) => ({ path: p, flags: ['--bind', p, p] })),
    ...policy.tmpfs.map((p) => ({ path: p, flags: ['--tmpfs', p] })),
    ...(policy.egress.kind === 'none' ? [] : [{ path: policy.egress.socket, flags: ['--ro-bind', policy.egress.socket, policy.egress.socket] }]),
    // After the root that holds it (sorted by target), so the file shows through its directory's bind.
    ...(policy.read_only_files ?? []).map((file) => ({ path: file.target, flags: ['--ro-bind', file.source, file.target] })),
  ];
  return mounts.sort((a, b) => comparePaths(a.path, b.path)).flatMap((mount) => mount.flags);
}

function comparePaths(a: string, b: string): number {
  const [x, y] = [a.split('/'), b.split('/')];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] ?? '') < (y[i] ?? '') ? -1 : 1;
  }
  return x.length - y.length;
}

/** The key listings this kernel has (none without CONFIG_KEYS; a bind onto a missing /proc file would fail). */
async function probeKeyListings(): Promise<string[]> {
  const found: string[] = [];
  for (const file of KEY_LISTINGS) if ((await stat(file).catch(() => null))?.isFile()) found.push(file);
  return found;
}

/** The host's /bin, /lib, /lib64 and /sbin: symlinks are recreated, directories bound. */
export async function probeTopLevel(): Promise<HostTopLevel[]> {
  const found: HostTopLevel[] = [];
  for (const dir of TOP_LEVEL) {
    const stats = await lstat(dir).catch(() => null);
    if (stats?.isSymbolicLink()) found.push({ path: dir, symlink: await readlink(dir) });
    else if (stats?.isDirectory()) found.push({ path: dir, symlink: null });
  }
  return found;
}

export const bubblewrapBackend: SandboxBackend = {
  id: 'bubblewrap',
  platforms: ['linux'],
  async probe(env) {
    const executable = await findOnPath('bwrap', env);
    if (executable === null) throw sandboxUnavailable('bubblewrap', 'bwrap was not found on PATH', INSTALL);
    await assertSystemExecutable(executable);
    const versionRun = await runProbe(executable, ['--version']);
    const version = versionRun.stdout.trim().split('\n')[0]?.trim() ?? '';
    if (!versionRun.ok || version === '') throw sandboxUnavailable('bubblewrap', `${executable} --version failed: ${versionRun.stderr.trim()}`, INSTALL);
    const arch = seccompArchOf(process.arch);
    if (arch === null) throw sandboxUnavailable('bubblewrap', `Citadel has no seccomp syscall table for ${process.arch} (x64 and arm64 only)`, null);
    const launcher = bubblewrapLauncher({ executable, version, topLevel: await probeTopLevel(), arch, keyListings: await probeKeyListings() });
    await trialLaunch(launcher);
    return launcher;
  },
};

/**
 * The exact recipe, once, around `env`: proves namespaces, /proc and /dev can be set up here, that
 * the seccomp filter loads (bwrap refuses to start the command when it does not), and that the
 * environment bwrap is spawned with reaches the command whole (a setuid bwrap would have glibc drop
 * TMPDIR and the LD_ variables on the way).
 */
export async function trialLaunch(launcher: SandboxLauncher): Promise<void> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'citadel-bwrap-trial-')));
  try {
    const env = { PATH: '/usr/bin:/bin', TMPDIR: '/tmp' };
    const launch = launcher.launchSpec(
      { backend: 'bubblewrap', read_only: [dir], read_write: [], tmpfs: [], env, egress: { kind: 'none' }, cwd: dir },
      { command: 'env', args: [] },
      path.join(dir, 'launch'),
    );
    await writeLaunchFiles(launch.files);
    const trial = await runProbe(launch.command, launch.args, launch.env, launch.fdFiles);
    const problem = trial.stderr.trim() || 'no output';
    if (!trial.ok && /seccomp/i.test(problem)) {
      throw sandboxUnavailable('bubblewrap', `a trial bwrap sandbox could not load Citadel's seccomp filter: ${problem}`, SECCOMP_HINT);
    }
    if (!trial.ok) throw sandboxUnavailable('bubblewrap', `a trial bwrap sandbox failed: ${problem}`, USERNS_HINT);
    const seen = trial.stdout.split('\n');
    const lost = Object.entries(env).filter(([name, value]) => !seen.includes(`${name}=${value}`));
    if (lost.length > 0) {
      throw sandboxUnavailable('bubblewrap', `a trial bwrap sandbox lost ${lost.map(([name]) => name).join(', ')} from its environment (setuid bwrap?)`, INSTALL);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A `bwrap` first on PATH that anyone but root could have written (a repository's bin folder, a
 * dependency's node_modules/.bin) would pass the trial and make every receipt say "contained".
 */
async function assertSystemExecutable(executable: string): Promise<void> {
  const real = await realpath(executable);
  for (const file of [real, path.dirname(real)]) {
    const stats = await stat(file);
    if (stats.uid !== 0 || (stats.mode & 0o022) !== 0) {
      throw sandboxUnavailable('bubblewrap', `${real} is not a system bwrap (${file} must be owned by root and writable by no one else)`, INSTALL);
    }
  }
}
