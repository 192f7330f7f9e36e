import { spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrapBackend, trialLaunch } from '../../../main/sandbox/bubblewrap';
import { writeLaunchFiles } from '../../../main/sandbox/generated-etc';
import { withLaunchFds } from '../../../main/sandbox/launch-fds';
import { BUILTIN_SANDBOX_BACKENDS, sandboxReadiness } from '../../../main/sandbox/registry';
import type { SandboxLauncher } from '../../../main/sandbox/sandbox-backend';
import { isCitadelError } from '../../../shared/errors';
import type { ContainmentPolicy } from '../../../shared/sandbox/containment-policy';
import { useTempDirs } from '../../support/temp-dir';

// Real bubblewrap, real child processes. Every denial is paired with the same probe run on the
// host without the sandbox, which must succeed: a probe that cannot succeed proves nothing.

const NODE = realpathSync(process.execPath);
const NODE_ROOT = path.dirname(path.dirname(NODE));
const tempDir = useTempDirs();
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let launcher: SandboxLauncher;
beforeAll(async () => {
  launcher = await bubblewrapBackend.probe(process.env);
});

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Spawns with `fdFiles` open as fds 3, 4, …, as the supervisor and the verifier spawn a launch. */
function run(command: string, args: readonly string[], { fdFiles = [], ...options }: { env: NodeJS.ProcessEnv; cwd: string; fdFiles?: readonly string[] }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = withLaunchFds(fdFiles, (fds) => spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe', ...fds], shell: false }));
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A node one-liner; inside the sandbox node comes from the read-only toolchain root. */
const node = (code: string, ...args: string[]): [string, string[]] => [NODE, ['-e', code, ...args]];
const READ = node("process.stdout.write(require('node:fs').readFileSync(process.argv[1], 'utf8'))");
const WRITE = node("require('node:fs').writeFileSync(process.argv[1], 'written by the probe')");
const CONNECT = `
  const target = process.argv[2] === undefined ? { path: process.argv[1] } : { host: process.argv[1], port: Number(process.argv[2]) };
  const socket = require('node:net').connect(target);
  socket.setTimeout(3000, () => socket.destroy(new Error('TIMEOUT')));
  socket.on('data', (data) => { process.stdout.write('connected:' + data); socket.end(); });
  socket.on('error', (error) => { process.stdout.write('refused:' + (error.code ?? error.message)); process.exitCode = 1; });`;
const connectTo = (...target: string[]): [string, string[]] => node(CONNECT, ...target);

/** A fork-like layout: the branch's worktree and a sibling inside the operator's checkout, beside an operator home. */
function layout() {
  const base = realpathSync(tempDir('citadel-sandbox-'));
  const parent = path.join(base, 'parent-checkout');
  const worktree = path.join(parent, '.citadel/forks/f1/worktrees/b1');
  const sibling = path.join(parent, '.citadel/forks/f1/worktrees/b2');
  const home = path.join(base, 'operator-home');
  const toolchain = path.join(base, 'toolchain');
  for (const dir of [worktree, sibling, path.join(home, '.ssh'), toolchain]) mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(parent, '.env'), 'PARENT_SECRET=1');
  writeFileSync(path.join(sibling, 'result.txt'), 'SIBLING_RESULT');
  writeFileSync(path.join(home, '.ssh/id_ed25519'), 'OPERATOR_KEY');
  writeFileSync(path.join(toolchain, 'tool.txt'), 'TOOL');
  const policy: ContainmentPolicy = {
    backend: 'bubblewrap',
    read_only: [toolchain, ...(NODE_ROOT.startsWith('/usr/') || NODE_ROOT === '/usr' ? [] : [NODE_ROOT])],
    read_write: [worktree],
    tmpfs: [],
    env: { PATH: '/usr/bin:/bin', HOME: worktree, LANG: 'C.UTF-8' },
    egress: { kind: 'none' },
    cwd: worktree,
  };
  return { base, parent, worktree, sibling, home, toolchain, policy, launchDir: path.join(base, 'launch') };
}
type Layout = ReturnType<typeof layout>;

interface ContainedOptions {
  readonly policy?: ContainmentPolicy;
  readonly env?: NodeJS.ProcessEnv;
  readonly edit?: (argv: string[]) => string[];
  /** Runs the launch through another command first (e.g. one that joins a session keyring): its argv, then bwrap's. */
  readonly via?: readonly string[];
  readonly fdFiles?: readonly string[];
}

/** The launch as the supervisor will make it: spawned with exactly launch.env and its fd files (a control may change them). */
async function contained(at: Layout, [command, args]: [string, string[]], options: ContainedOptions = {}): Promise<Finished> {
  const policy = options.policy ?? at.policy;
  const launch = launcher.launchSpec(policy, { command, args }, at.launchDir);
  await writeLaunchFiles(launch.files);
  const argv = [launch.command, ...(options.edit ? options.edit([...launch.args]) : launch.args)];
  const [first, ...rest] = [...(options.via ?? []), ...argv] as [string, ...string[]];
  return run(first, rest, { env: options.env ?? launch.env, cwd: policy.cwd, fdFiles: options.fdFiles ?? launch.fdFiles });
}

/** The same probe on the host, uncontained: the control. */
function onHost(at: Layout, [command, args]: [string, string[]], env: NodeJS.ProcessEnv = process.env): Promise<Finished> {
  return run(command, args, { env, cwd: at.worktree });
}

/** A process and all its descendants, by their /proc/<pid>/stat parent links. */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid);
  return tree;
}

/** Drops flag pairs such as `--cap-drop ALL` from an argv (for the controls that show why they are there). */
const without = (...pairs: [string, string][]) => (argv: string[]): string[] =>
  argv.filter((arg, i) => !pairs.some(([flag, value]) => (arg === flag && argv[i + 1] === value) || (arg === value && argv[i - 1] === flag)));

function listen(server: Server, ...address: [string] | [number, string]): Promise<void> {
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return new Promise((resolve) => {
    if (address.length === 1) server.listen(address[0], () => resolve());
    else server.listen(address[0], address[1], () => resolve());
  });
}

const answering = (reply: string): Server => createServer((socket) => socket.end(reply));

describe('bubblewrap containment (real bwrap)', () => {
  it('is ready here: bwrap on PATH, its version read, a trial sandbox started', async () => {
    expect(launcher.version).toMatch(/^bubblewrap \d+\.\d+/);
    expect(await sandboxReadiness('linux', BUILTIN_SANDBOX_BACKENDS, process.env)).toEqual({
      backend: 'bubblewrap',
      ready: true,
      executable: launcher.executable,
      version: launcher.version,
      problem: null,
      install: null,
    });
  });

  it('runs in its worktree with exactly the policy environment, writes the worktree and reads a read-only root', async () => {
    const at = layout();
    const probe = node(
      "const fs = require('node:fs'); fs.writeFileSync('out.txt', 'from inside'); process.stdout.write(JSON.stringify({ cwd: process.cwd(), env: process.env, tool: fs.readFileSync(process.argv[1], 'utf8') }))",
      path.join(at.toolchain, 'tool.txt'),
    );
    const inside = await contained(at, probe);
    expect(inside.code, inside.stderr).toBe(0);
    // bwrap itself sets PWD to the --chdir directory; nothing else is added.
    expect(JSON.parse(inside.stdout)).toEqual({ cwd: at.worktree, env: { ...at.policy.env, PWD: at.worktree }, tool: 'TOOL' });
    expect(readFileSync(path.join(at.worktree, 'out.txt'), 'utf8')).toBe('from inside');
  });

  it.each([
    ['a sibling worktree', (at: Layout) => path.join(at.sibling, 'result.txt'), 'SIBLING_RESULT'],
    ['an untracked file of the parent checkout', (at: Layout) => path.join(at.parent, '.env'), 'PARENT_SECRET=1'],
    ['the operator home', (at: Layout) => path.join(at.home, '.ssh/id_ed25519'), 'OPERATOR_KEY'],
  ])('cannot read %s', async (_what, file, content) => {
    const at = layout();
    const probe = [READ[0], [...READ[1], file(at)]] as [string, string[]];
    expect((await onHost(at, probe)).stdout).toBe(content);
    const inside = await contained(at, probe);
    expect(inside.code).not.toBe(0);
    expect(inside.stdout).toBe('');
    expect(inside.stderr).toContain('ENOENT');
  });

  it('cannot write the host /tmp (the parent checkout lives there in this test): writes land in a private tmpfs', async () => {
    const at = layout();
    const targets = [path.join(tmpdir(), `citadel-sandbox-escape-${process.pid}-${Date.now()}`), path.join(at.parent, 'planted.txt')];
    for (const target of targets) {
      cleanups.push(() => rmSync(target, { force: true }));
      const probe = [WRITE[0], [...WRITE[1], target]] as [string, string[]];
      expect((await onHost(at, probe)).code).toBe(0);
      expect(existsSync(target)).toBe(true);
      rmSync(target);
      expect((await contained(at, probe)).code).toBe(0);
      expect(existsSync(target)).toBe(false);
    }
  });

  it.each([
    ['a read-only root', (at: Layout) => path.join(at.toolchain, 'planted.txt'), 'EROFS'],
    ['a host directory it was not given', (at: Layout) => path.join(at.home, 'planted.txt'), 'ENOENT'],
  ])('cannot write %s', async (_what, file, code) => {
    const at = layout();
    const target = file(at);
    const probe = [WRITE[0], [...WRITE[1], target]] as [string, string[]];
    expect((await onHost(at, probe)).code).toBe(0);
    rmSync(target);
    const inside = await contained(at, probe);
    expect(inside.code).not.toBe(0);
    expect(inside.stderr).toContain(code);
    expect(existsSync(target)).toBe(false);
  });

  it('cannot remount a read-only root writable; as root, without --cap-drop ALL and the uid mapping it could', async () => {
    const at = layout();
    const tool = path.join(at.toolchain, 'tool.txt');
    const remount = ['/bin/sh', ['-c', 'mount -o remount,bind,rw "$1" && echo changed >> "$1/tool.txt"', 'sh', at.toolchain]] as [string, string[]];
    const inside = await contained(at, remount);
    expect(inside.code).not.toBe(0);
    expect(readFileSync(tool, 'utf8')).toBe('TOOL');
    if (process.getuid?.() !== 0) return; // the control needs a root operator, the case the flags are for
    const unhardened = await contained(at, remount, { edit: without(['--uid', '1000'], ['--gid', '1000'], ['--cap-drop', 'ALL']) });
    expect(unhardened.code, unhardened.stderr).toBe(0);
    expect(readFileSync(tool, 'utf8')).toBe('TOOLchanged\n');
  });

  it('does not see the host environment, only what the policy sets: the spawn environment is exactly launch.env', async () => {
    const at = layout();
    process.env['CITADEL_PROBE_SECRET'] = 'host-only';
    cleanups.push(() => void delete process.env['CITADEL_PROBE_SECRET']);
    const printEnv = ['/usr/bin/env', []] as [string, string[]];
    expect((await onHost(at, printEnv)).stdout).toContain('CITADEL_PROBE_SECRET=host-only');
    const launch = launcher.launchSpec(at.policy, { command: printEnv[0], args: printEnv[1] }, at.launchDir);
    // The launch carries the policy's environment and nothing of this process's.
    expect(launch.env).toEqual(at.policy.env);
    const inside = await contained(at, printEnv);
    const expected = { ...at.policy.env, PWD: at.worktree };
    expect(inside.stdout.trim().split('\n').sort()).toEqual(Object.entries(expected).map(([name, value]) => `${name}=${value}`).sort());
    // The control: bwrap passes on whatever it is spawned with, so the spawn environment is the only guard.
    const leaky = await contained(at, printEnv, { env: { ...launch.env, CITADEL_PROBE_SECRET: 'host-only' } });
    expect(leaky.stdout).toContain('CITADEL_PROBE_SECRET=host-only');
  });

  it('keeps every environment value out of the argv of every process of a running sandbox, where any local user could read it', async () => {
    const at = layout();
    const secret = 'sk-ant-test-cmdline-0123456789abcdef';
    const policy: ContainmentPolicy = { ...at.policy, env: { ...at.policy.env, ANTHROPIC_API_KEY: secret } };
    const launch = launcher.launchSpec(policy, { command: '/bin/sh', args: ['-c', 'echo started; exec /bin/sleep 30'] }, at.launchDir);
    await writeLaunchFiles(launch.files);
    const child = withLaunchFds(launch.fdFiles, (fds) => spawn(launch.command, launch.args, { env: launch.env, cwd: policy.cwd, stdio: ['ignore', 'pipe', 'ignore', ...fds], shell: false }));
    cleanups.push(() => void child.kill('SIGKILL'));
    await new Promise<void>((resolve, reject) => {
      child.stdout?.once('data', () => resolve());
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the sandbox ended early (${code})`)));
    });
    const tree = processTree(child.pid!);
    // bwrap, its namespace's init and the sleeping command at least.
    expect(tree.length).toBeGreaterThanOrEqual(2);
    for (const pid of tree) expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8'), `pid ${pid}`).not.toContain(secret);
    // Where the value lives instead: the environment, readable by its owner only.
    expect(readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0')).toContain(`ANTHROPIC_API_KEY=${secret}`);
    expect(statSync(`/proc/${child.pid}/environ`).mode & 0o077).toBe(0);
  });

  it('cannot reach the D-Bus session (the Secret Service) by its socket', async () => {
    const at = layout();
    // The tests run on a real session bus (with-secret-service.sh); without one, a stand-in socket.
    let bus = /unix:path=([^,;]+)/.exec(process.env['DBUS_SESSION_BUS_ADDRESS'] ?? '')?.[1];
    if (bus === undefined) {
      bus = path.join(at.home, 'bus');
      await listen(answering('bus'), bus);
    }
    const probe = node(`${CONNECT}; socket.on('connect', () => { process.stdout.write('connected'); socket.destroy(); })`, bus);
    expect((await onHost(at, probe)).stdout).toMatch(/^connected/);
    const inside = await contained(at, probe);
    expect(inside.stdout).toBe('refused:ENOENT');
  });

  it("cannot read another process's /proc/<pid>/environ", async () => {
    const at = layout();
    const other = spawn('/bin/sleep', ['30'], { env: { OTHER_PROCESS_SECRET: 'in-environ' }, stdio: 'ignore' });
    cleanups.push(() => void other.kill('SIGKILL'));
    const probe = [READ[0], [...READ[1], `/proc/${other.pid}/environ`]] as [string, string[]];
    expect((await onHost(at, probe)).stdout).toContain('OTHER_PROCESS_SECRET=in-environ');
    const inside = await contained(at, probe);
    expect(inside.code).not.toBe(0);
    expect(inside.stdout).not.toContain('in-environ');
  });

  it('reaches no host loopback port, only the egress bridge socket it is given', async () => {
    const at = layout();
    const provider = answering('provider');
    await listen(provider, 0, '127.0.0.1');
    const port = String((provider.address() as AddressInfo).port);
    const socket = path.join(at.base, 'egress.sock');
    await listen(answering('bridge'), socket);
    const policy: ContainmentPolicy = { ...at.policy, egress: { kind: 'loopback', host: '127.0.0.1', port: Number(port), socket } };

    expect((await onHost(at, connectTo('127.0.0.1', port))).stdout).toBe('connected:provider');
    expect((await contained(at, connectTo('127.0.0.1', port), { policy })).stdout).toBe('refused:ECONNREFUSED');
    expect((await contained(at, connectTo(socket), { policy })).stdout).toBe('connected:bridge');
    expect((await contained(at, connectTo(socket))).stdout).toBe('refused:ENOENT');
  });

  it('leaves no process behind: a setsid child stops when the sandbox ends', async () => {
    const at = layout();
    // The ticker stops by itself after about 5 s, so a broken sandbox cannot leave it running for good.
    const ticker = 'echo $$ > "$1.pid"; i=0; while [ $i -lt 100 ]; do echo tick >> "$1"; sleep 0.05; i=$((i+1)); done';
    const script = `setsid sh -c '${ticker}' sh "$1" </dev/null >/dev/null 2>&1 & sleep 0.3`;
    const grows = async (marker: string): Promise<boolean> => {
      const before = statSync(marker).size;
      await new Promise((resolve) => setTimeout(resolve, 400));
      return statSync(marker).size > before;
    };

    const hostMarker = path.join(at.base, 'host-marker');
    expect((await onHost(at, ['/bin/sh', ['-c', script, 'sh', hostMarker]])).code).toBe(0);
    const hostTicker = Number(readFileSync(`${hostMarker}.pid`, 'utf8'));
    cleanups.push(() => {
      try {
        process.kill(hostTicker, 'SIGKILL');
      } catch {
        // it already ended by itself
      }
    });
    expect(await grows(hostMarker)).toBe(true);

    const marker = path.join(at.worktree, 'marker');
    const inside = await contained(at, ['/bin/sh', ['-c', script, 'sh', marker]]);
    expect(inside.code, inside.stderr).toBe(0);
    expect(statSync(marker).size).toBeGreaterThan(0);
    expect(await grows(marker)).toBe(false);
  });

  it('lets a runtime start its own nested bwrap (Codex), which --cap-drop ALL alone breaks for root', async () => {
    const at = layout();
    const nested = ['bwrap', ['--unshare-all', '--ro-bind', '/', '/', '--', '/usr/bin/true']] as [string, string[]];
    const inside = await contained(at, nested);
    expect(inside.code, inside.stderr).toBe(0);
    // With a seccomp filter of its own stacked on Citadel's (Codex loads one), and still no keyring.
    copyFileSync(path.join(at.launchDir, 'seccomp.bpf'), path.join(at.worktree, 'inner.bpf'));
    const filters = (out: string): number => Number(/Seccomp_filters:\s+(\d+)/.exec(out)?.[1]);
    const outer = await contained(at, ['/bin/sh', ['-c', 'grep Seccomp_filters /proc/self/status']]);
    const stacked = await contained(at, ['/bin/sh', ['-c', 'bwrap --unshare-all --ro-bind / / --seccomp 9 -- /bin/sh -c "grep Seccomp_filters /proc/self/status; keyctl show @s" 9< inner.bpf']]);
    expect(stacked.stderr).toContain('Operation not permitted');
    expect(filters(stacked.stdout)).toBe(filters(outer.stdout) + 1);
    if (process.getuid?.() !== 0) return;
    const capDropOnly = await contained(at, nested, { edit: without(['--uid', '1000'], ['--gid', '1000']) });
    expect(capDropOnly.code).not.toBe(0);
    expect(capDropOnly.stderr).toContain('uid map');
  });
});

describe('bubblewrap keyring filter (real bwrap, real kernel keyrings)', () => {
  // A key in a fresh session keyring of the operator's: a user namespace does not namespace keyrings.
  const SECRET = `citadel-keyring-secret-${process.pid}`;
  const withSessionKey = ['keyctl', 'session', '-', '/bin/sh', '-c', `keyctl add user citadel-probe ${SECRET} @s >/dev/null && exec "$@"`, 'sh'];
  const readKey = ['/bin/sh', ['-c', 'id=$(keyctl search @s user citadel-probe) && keyctl pipe "$id"']] as [string, string[]];

  it('cannot read the operator’s session keyring: keyctl fails with EPERM, where the same probe reads the key on the host', async () => {
    const at = layout();
    const host = await run(withSessionKey[0]!, [...withSessionKey.slice(1), readKey[0], ...readKey[1]], { env: process.env, cwd: at.worktree });
    expect(host.code, host.stderr).toBe(0);
    expect(host.stdout).toBe(SECRET);
    const inside = await contained(at, readKey, { via: withSessionKey });
    expect(inside.code).not.toBe(0);
    expect(inside.stdout).not.toContain(SECRET);
    expect(inside.stderr).toContain('Operation not permitted');
    // The control that shows why the filter is there: the same sandbox without it reads the key.
    const unfiltered = await contained(at, readKey, { via: withSessionKey, edit: without(['--seccomp', '3']), fdFiles: [] });
    expect(unfiltered.code, unfiltered.stderr).toBe(0);
    expect(unfiltered.stdout).toBe(SECRET);
  });

  it('cannot add or request a key either, and the program’s fd does not reach the sandbox', async () => {
    const at = layout();
    const probe = ['/bin/sh', ['-c', 'ls -l /proc/$$/fd; keyctl add user planted x @s; keyctl request user citadel-probe']] as [string, string[]];
    const inside = await contained(at, probe, { via: withSessionKey });
    expect(inside.stderr.match(/Operation not permitted/g)).toHaveLength(2);
    expect(inside.stdout).not.toContain('seccomp.bpf');
    const host = await run(withSessionKey[0]!, [...withSessionKey.slice(1), probe[0], ...probe[1]], { env: process.env, cwd: at.worktree });
    expect(host.code, host.stderr).toBe(0);
    expect(host.stderr).not.toContain('Operation not permitted');
  });

  it('cannot list the operator’s keys by name either: /proc/keys and /proc/key-users read empty, where the host lists the key', async () => {
    const at = layout();
    const listing = ['/bin/sh', ['-c', 'cat /proc/keys /proc/key-users']] as [string, string[]];
    const host = await run(withSessionKey[0]!, [...withSessionKey.slice(1), listing[0], ...listing[1]], { env: process.env, cwd: at.worktree });
    expect(host.stdout).toContain('citadel-probe');
    const inside = await contained(at, listing, { via: withSessionKey });
    expect(inside.code, inside.stderr).toBe(0);
    expect(inside.stdout).toBe('');
    // Control: without the two binds the sandbox's own /proc lists the key's name.
    const masks = (argv: string[], i: number): boolean => argv[i] === '--ro-bind' && /^\/proc\/key/.test(argv[i + 2] ?? '');
    const unmask = (argv: string[]): string[] => argv.filter((_, i) => !masks(argv, i) && !masks(argv, i - 1) && !masks(argv, i - 2));
    const unmasked = await contained(at, listing, { via: withSessionKey, edit: unmask });
    expect(unmasked.stdout).toContain('citadel-probe');
  });

  it('fails closed: a launch spawned without its seccomp fd does not start', async () => {
    const at = layout();
    const marker = path.join(at.worktree, 'ran');
    const probe = ['/bin/sh', ['-c', 'echo ran > "$1"', 'sh', marker]] as [string, string[]];
    expect((await contained(at, probe)).code).toBe(0);
    rmSync(marker);
    const withoutFd = await contained(at, probe, { fdFiles: [] });
    expect(withoutFd.code).not.toBe(0);
    expect(withoutFd.stderr).toContain('seccomp');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('bubblewrap readiness', () => {
  it('is SANDBOX_UNAVAILABLE on an architecture Citadel has no seccomp syscall table for', async () => {
    const arch = Object.getOwnPropertyDescriptor(process, 'arch')!;
    Object.defineProperty(process, 'arch', { ...arch, value: 'riscv64' });
    const refusal = await bubblewrapBackend.probe(process.env).catch((error: unknown) => error);
    Object.defineProperty(process, 'arch', arch);
    expect(isCitadelError(refusal) && refusal.details).toEqual({ backend: 'bubblewrap', problem: 'Citadel has no seccomp syscall table for riscv64 (x64 and arm64 only)', install: null });
    // The same probe on this host's own architecture is ready.
    expect((await bubblewrapBackend.probe(process.env)).backend).toBe('bubblewrap');
  });

  it('is SANDBOX_UNAVAILABLE, with bwrap’s reason, when the trial cannot load the seccomp program', async () => {
    const truncated: SandboxLauncher = {
      ...launcher,
      launchSpec: (policy, command, launchDir) => {
        const launch = launcher.launchSpec(policy, command, launchDir);
        return { ...launch, files: launch.files.map((file) => ('bytes' in file ? { ...file, bytes: file.bytes.subarray(0, 12) } : file)) };
      },
    };
    await expect(trialLaunch(launcher)).resolves.toBeUndefined();
    const refusal = await trialLaunch(truncated).catch((error: unknown) => error);
    expect(isCitadelError(refusal) && refusal.code).toBe('SANDBOX_UNAVAILABLE');
    expect(isCitadelError(refusal) && refusal.details).toMatchObject({
      backend: 'bubblewrap',
      problem: expect.stringMatching(/could not load Citadel's seccomp filter: bwrap: Invalid seccomp data, must be multiple of 8/),
      install: expect.stringContaining('CONFIG_SECCOMP_FILTER'),
    });
  });

  it('is SANDBOX_UNAVAILABLE, naming the package, when bwrap is not on PATH', async () => {
    const emptyBin = tempDir('citadel-no-bwrap-');
    const refusal = await bubblewrapBackend.probe({ PATH: emptyBin }).catch((error: unknown) => error);
    expect(isCitadelError(refusal) && refusal.code).toBe('SANDBOX_UNAVAILABLE');
    expect(isCitadelError(refusal) && refusal.details).toEqual({
      backend: 'bubblewrap',
      problem: 'bwrap was not found on PATH',
      install: 'bubblewrap (apt-get install bubblewrap, dnf install bubblewrap)',
    });
    expect(await sandboxReadiness('linux', BUILTIN_SANDBOX_BACKENDS, { PATH: emptyBin })).toMatchObject({ backend: 'bubblewrap', ready: false, install: expect.stringContaining('bubblewrap') });
  });

  it('is SANDBOX_UNAVAILABLE for a bwrap first on PATH that someone other than root could have written', async () => {
    const bin = tempDir('citadel-planted-bwrap-');
    const planted = path.join(bin, 'bwrap');
    // A working bwrap, copied: only where it lies makes it untrustworthy.
    copyFileSync('/usr/bin/bwrap', planted);
    chmodSync(planted, 0o755);
    expect((await bubblewrapBackend.probe({ PATH: bin })).executable).toBe(planted);
    chmodSync(bin, 0o777);
    const refusal = await bubblewrapBackend.probe({ PATH: bin }).catch((error: unknown) => error);
    expect(isCitadelError(refusal) && refusal.code).toBe('SANDBOX_UNAVAILABLE');
    expect(isCitadelError(refusal) && String(refusal.details?.['problem'])).toMatch(/is not a system bwrap/);
    chmodSync(bin, 0o700);
    chownSync(planted, 65534, 65534);
    expect(isCitadelError(await bubblewrapBackend.probe({ PATH: bin }).catch((error: unknown) => error))).toBe(true);
  });

  it('is SANDBOX_UNAVAILABLE when the trial sandbox fails (user namespaces disabled)', async () => {
    const bin = tempDir('citadel-fake-bwrap-');
    const fake = path.join(bin, 'bwrap');
    writeFileSync(fake, '#!/bin/sh\nif [ "$1" = --version ]; then echo "bubblewrap 0.8.0"; exit 0; fi\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
    chmodSync(fake, 0o755);
    const refusal = await bubblewrapBackend.probe({ PATH: bin }).catch((error: unknown) => error);
    expect(isCitadelError(refusal) && refusal.code).toBe('SANDBOX_UNAVAILABLE');
    expect(isCitadelError(refusal) && refusal.details).toMatchObject({
      problem: 'a trial bwrap sandbox failed: bwrap: No permissions to create new namespace',
      install: expect.stringContaining('user namespaces'),
    });
  });

  it('is SANDBOX_UNAVAILABLE when the trial sandbox loses part of the environment it was spawned with (a setuid bwrap)', async () => {
    const bin = tempDir('citadel-setuid-like-bwrap-');
    const fake = path.join(bin, 'bwrap');
    // What glibc does to a setuid program's environment: TMPDIR (and the LD_ variables) dropped.
    writeFileSync(fake, '#!/bin/sh\nif [ "$1" = --version ]; then echo "bubblewrap 0.8.0"; exit 0; fi\nunset TMPDIR\nexec /usr/bin/env\n');
    chmodSync(fake, 0o755);
    const refusal = await bubblewrapBackend.probe({ PATH: bin }).catch((error: unknown) => error);
    expect(isCitadelError(refusal) && refusal.code).toBe('SANDBOX_UNAVAILABLE');
    expect(isCitadelError(refusal) && String(refusal.details?.['problem'])).toMatch(/lost TMPDIR from its environment/);
  });
});
