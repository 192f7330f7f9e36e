import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchSupervised } from '../../../main/runtimes/process-control/launch-supervised';
import { waitForExit } from '../../../main/runtimes/process-control/wait-for-exit';
import { egressDenialsFile, readEgressDenials } from '../../../main/runtimes/supervisor/egress-denials';
import type { LaunchSpec } from '../../../main/runtimes/supervisor/launch-spec';
import { EGRESS_BRIDGE_FAILED } from '../../../main/runtimes/supervisor/supervise';
import { bubblewrapBackend } from '../../../main/sandbox/bubblewrap';
import { containedCommand } from '../../../main/sandbox/contained-command';
import { writeLaunchFiles } from '../../../main/sandbox/generated-etc';
import type { SandboxLauncher } from '../../../main/sandbox/sandbox-backend';
import type { ContainmentPolicy, LaunchEgress } from '../../../shared/sandbox/containment-policy';
import { REPO_ROOT } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';
import { readText, useBundles, useRunCleanup, waitUntil } from './harness';

// The egress probe of the sandbox tests: tries each check and prints one JSON array of outcomes.
const PROBE_DIR = path.join(REPO_ROOT, 'test/integration/sandbox/egress');
const PROBE = path.join(PROBE_DIR, 'egress-probe.mjs');
const NODE = realpathSync(process.execPath);
const POLL = { pollMs: 25 };

const tempDir = useTempDirs();
const bundles = useBundles();
const track = useRunCleanup();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let innerBridge = '';
let buildDir = '';
let launcher: SandboxLauncher;
beforeAll(async () => {
  buildDir = realpathSync(mkdtempSync(path.join(tmpdir(), 'citadel-inner-bridge-')));
  innerBridge = path.join(buildDir, 'sandbox-inner-bridge.mjs');
  await build({ absWorkingDir: REPO_ROOT, entryPoints: ['main/sandbox/egress/inner-bridge.ts'], outfile: innerBridge, bundle: true, platform: 'node', target: 'node20', format: 'esm', logLevel: 'warning' });
  launcher = await bubblewrapBackend.probe(process.env);
});
afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

async function httpServer(answer: string): Promise<number> {
  const server: Server = createServer((_request, response) => response.end(answer));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  cleanups.push(() => void server.closeAllConnections());
  return (server.address() as AddressInfo).port;
}

type Check = { http: number } | { connect: string };

function readOr(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** A process and all its descendants, by their /proc/<pid>/stat parent links. */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const stat = readOr(`/proc/${entry}/stat`);
    if (stat !== '') parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid);
  return tree;
}

/** A supervised launch of the probe, contained with `egress`, as the engine builds one. */
async function containedProbe(egress: (socket: string) => LaunchEgress, checks: readonly Check[] | 'hold', env: Record<string, string> = {}): Promise<{ spec: LaunchSpec; socket: string }> {
  const dir = realpathSync(tempDir('citadel-contained-'));
  const work = path.join(dir, 'work');
  mkdirSync(work);
  const socket = path.join(dir, 'egress.sock');
  const policy: ContainmentPolicy = {
    backend: 'bubblewrap',
    read_only: [PROBE_DIR],
    read_write: [work],
    tmpfs: [],
    env: { PATH: '/usr/bin:/bin', HOME: work, ...env },
    egress: egress(socket),
    cwd: work,
  };
  const command = checks === 'hold' ? { command: NODE, args: ['-e', 'setInterval(() => {}, 1000)'] } : { command: NODE, args: [PROBE, JSON.stringify(checks)] };
  const contained = containedCommand(launcher, policy, command, { launchDir: path.join(dir, 'launch'), innerBridgeScript: innerBridge, nodeExecPath: NODE });
  await writeLaunchFiles(contained.files);
  const stdin = path.join(dir, 'stdin.txt');
  writeFileSync(stdin, '');
  return {
    socket,
    spec: {
      command: contained.command,
      args: contained.args,
      cwd: work,
      // As the engine launches it: the backend is spawned with exactly the policy's environment.
      env: contained.env,
      stdin_file: stdin,
      stdout_file: path.join(dir, 'stdout.log'),
      stderr_file: path.join(dir, 'stderr.log'),
      status_file: path.join(dir, 'run.json'),
      timeout_ms: 60_000,
      kill_grace_ms: 1_000,
      egress_bridge: contained.bridge,
    },
  };
}

function runOnHost(checks: readonly Check[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [PROBE, JSON.stringify(checks)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', () => resolve(JSON.parse(out.trim()) as unknown));
  });
}

/** Whether anything still answers on a unix socket path. */
function socketAnswers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect({ path: socket });
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

describe.skipIf(process.platform !== 'linux')('a contained supervised run serves its egress bridge', () => {
  it('reaches its loopback provider through the bridge and no other loopback port; the bridge is gone after the run', async () => {
    const provider = await httpServer('provider');
    const other = await httpServer('other');
    const checks: Check[] = [{ http: provider }, { http: other }];
    // Control: on the host both ports answer, so the refusal below is the sandbox's doing.
    expect(await runOnHost(checks)).toEqual([
      { ok: true, body: 'provider' },
      { ok: true, body: 'other' },
    ]);

    const { spec, socket } = await containedProbe((s) => ({ kind: 'loopback', host: '127.0.0.1', port: provider, socket: s }), checks);
    track(await launchSupervised(spec, bundles().supervisor));
    const exited = await waitForExit(spec.status_file, POLL);
    expect(exited, readText(spec.stderr_file)).toMatchObject({ phase: 'exited', exit_code: 0, spawn_error: null });
    expect(JSON.parse(readText(spec.stdout_file).trim())).toEqual([
      { ok: true, body: 'provider' },
      { ok: false, code: 'ECONNREFUSED' },
    ]);
    // Recorded `exited` means the bridge is closed: nothing answers, and its socket file is removed.
    expect(existsSync(socket)).toBe(false);
    expect(await socketAnswers(socket)).toBe(false);
  });

  it('a cloud runtime gets only CONNECT to its hosts: a refused host is recorded as a typed denial', async () => {
    const { spec } = await containedProbe((s) => ({ kind: 'cloud', hosts: ['api.example.test'], socket: s }), [{ connect: 'elsewhere.example.test:443' }, { connect: 'api.example.test:80' }]);
    track(await launchSupervised(spec, bundles().supervisor));
    expect(await waitForExit(spec.status_file, POLL), readText(spec.stderr_file)).toMatchObject({ exit_code: 0 });
    expect(JSON.parse(readText(spec.stdout_file).trim())).toEqual([
      { ok: false, status: 403, body: '' },
      { ok: false, status: 403, body: '' },
    ]);
    expect(await readEgressDenials(egressDenialsFile(spec.status_file))).toEqual([
      { host: 'elsewhere.example.test', port: 443, reason: 'host_not_allowed' },
      { host: 'api.example.test', port: 80, reason: 'port_not_allowed' },
    ]);
  });

  it('STOP ends the sandbox and closes the bridge', async () => {
    const provider = await httpServer('provider');
    const { spec, socket } = await containedProbe((s) => ({ kind: 'loopback', host: '127.0.0.1', port: provider, socket: s }), 'hold');
    const running = track(await launchSupervised(spec, bundles().supervisor));
    expect(running.phase).toBe('running');
    await waitUntil('the bridge listens', () => existsSync(socket));
    expect(await socketAnswers(socket)).toBe(true);
    process.kill(running.supervisor_pid, 'SIGTERM');
    expect(await waitForExit(spec.status_file, POLL)).toMatchObject({ phase: 'exited', stopped: true });
    expect(await socketAnswers(socket)).toBe(false);
  });

  it('keeps a credential out of every argv of the running sandbox, bridge included: it is only in environments, readable by their owner', async () => {
    const secret = 'sk-ant-test-supervised-0123456789abcdef';
    const provider = await httpServer('provider');
    const { spec } = await containedProbe((s) => ({ kind: 'loopback', host: '127.0.0.1', port: provider, socket: s }), 'hold', { ANTHROPIC_API_KEY: secret });
    const running = track(await launchSupervised(spec, bundles().supervisor));
    expect(running.phase).toBe('running');
    // The held command runs last, started by the inner bridge: once it is there, the whole tree is.
    const cmdlines = (): Map<number, string> => new Map(processTree(running.supervisor_pid).map((pid) => [pid, readOr(`/proc/${pid}/cmdline`)]));
    await waitUntil('the contained command runs', () => [...cmdlines().values()].some((cmdline) => cmdline.includes('setInterval')));
    const tree = cmdlines();
    // supervisor, bwrap, the namespace's init, the inner bridge, the command.
    expect(tree.size).toBeGreaterThanOrEqual(4);
    for (const [pid, cmdline] of tree) expect(cmdline, `pid ${pid}: ${cmdline}`).not.toContain(secret);
    const held = [...tree].find(([, cmdline]) => cmdline.includes('setInterval'))![0];
    for (const pid of [running.runtime_pid, held]) {
      expect(readOr(`/proc/${pid}/environ`).split('\0')).toContain(`ANTHROPIC_API_KEY=${secret}`);
      expect(statSync(`/proc/${pid}/environ`).mode & 0o077).toBe(0);
    }
    process.kill(running.supervisor_pid, 'SIGTERM');
    expect(await waitForExit(spec.status_file, POLL)).toMatchObject({ phase: 'exited', stopped: true });
  });

  it('spawns nothing when the bridge cannot listen', async () => {
    const { spec, socket } = await containedProbe((s) => ({ kind: 'loopback', host: '127.0.0.1', port: 9, socket: s }), [{ http: 9 }]);
    writeFileSync(socket, 'not a socket');
    track(await launchSupervised(spec, bundles().supervisor));
    expect(await waitForExit(spec.status_file, POLL)).toMatchObject({ phase: 'exited', runtime_pid: null, spawn_error: EGRESS_BRIDGE_FAILED });
    expect(readText(spec.stdout_file)).toBe('');
  });
});
