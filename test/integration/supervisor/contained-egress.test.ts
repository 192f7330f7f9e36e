import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PROVIDER_ROUTES } from '../../../main/runtimes/local-providers/local-providers';
import { launchSupervised } from '../../../main/runtimes/process-control/launch-supervised';
import { isSameProcessAlive } from '../../../main/runtimes/os-process/process-liveness';
import { waitForExit } from '../../../main/runtimes/process-control/wait-for-exit';
import { egressDenialsFile, readEgressDenials } from '../../../main/runtimes/supervisor/egress-denials';
import type { LaunchSpec } from '../../../main/runtimes/supervisor/launch-spec';
import { EGRESS_BRIDGE_FAILED } from '../../../main/runtimes/supervisor/supervise';
import { bubblewrapBackend } from '../../../main/sandbox/bubblewrap';
import { containedCommand } from '../../../main/sandbox/contained-command';
import { makeBridgeSocketPath, reclaimStaleSocketDirs } from '../../../main/sandbox/egress/socket-dir';
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

/** An Ollama stand-in: `/v1/responses` streams `events`, holding back all but the first until `/v1/models` is asked for; `/api/pull` succeeds. */
async function fakeOllama(events: readonly string[]): Promise<{ port: number; seen: string[] }> {
  const seen: string[] = [];
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const route = `${request.method} ${request.url}`;
      seen.push(route);
      if (route === 'GET /v1/models') {
        release();
        response.end('{"object":"list","data":[]}');
      } else if (route === 'POST /v1/responses') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(events[0]);
        void released.then(async () => {
          for (const event of events.slice(1)) {
            response.write(event);
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          response.end();
        });
      } else if (route === 'POST /api/pull') {
        response.end('{"status":"success"}');
      } else {
        response.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  cleanups.push(() => void server.closeAllConnections());
  return { port: (server.address() as AddressInfo).port, seen };
}

type Check = { http: number } | { connect: string } | { request: { port: number; method: string; path: string; body?: string; release?: string } };

// The probe's `{ http }` check is `GET /`: in these tests, the provider's one route.
const ROOT_ROUTE = [{ method: 'GET', path: '/' }] as const;

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
async function containedProbe(
  egress: (socket: string) => LaunchEgress,
  checks: readonly Check[] | 'hold',
  env: Record<string, string> = {},
  socketPath?: string,
): Promise<{ spec: LaunchSpec; socket: string }> {
  const dir = realpathSync(tempDir('citadel-contained-'));
  const work = path.join(dir, 'work');
  mkdirSync(work);
  const socket = socketPath ?? path.join(dir, 'egress.sock');
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
      // The backend's seccomp program, as the engine passes it: fd 3 of bwrap.
      extra_fd_files: contained.fdFiles,
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

    const { spec, socket } = await containedProbe((s) => ({ kind: 'loopback', host: '127.0.0.1', port: provider, routes: [...ROOT_ROUTE], socket: s }), checks);
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
    const { spec, socket } = await containedProbe((s) => ({ kind: 'loopback', host: '127.0.0.1', port: provider, routes: [...ROOT_ROUTE], socket: s }), 'hold');
    const running = track(await launchSupervised(spec, bundles().supervisor));
    expect(running.phase).toBe('running');
    await waitUntil('the bridge listens', () => existsSync(socket));
    expect(await socketAnswers(socket)).toBe(true);
    process.kill(running.supervisor_pid, 'SIGTERM');
    expect(await waitForExit(spec.status_file, POLL)).toMatchObject({ phase: 'exited', stopped: true });
    expect(await socketAnswers(socket)).toBe(false);
  });

  it('STOP, and a runtime killed from outside, each leave no citadel-egress directory behind', async () => {
    const provider = await httpServer('provider');
    const egress = (s: string): LaunchEgress => ({ kind: 'loopback', host: '127.0.0.1', port: provider, routes: [...ROOT_ROUTE], socket: s });
    for (const end of ['STOP', 'runtime killed'] as const) {
      const socket = await makeBridgeSocketPath();
      cleanups.push(() => rmSync(path.dirname(socket), { recursive: true, force: true }));
      const { spec } = await containedProbe(egress, 'hold', {}, socket);
      const running = track(await launchSupervised(spec, bundles().supervisor));
      expect(await socketAnswers(socket), `${end}: the bridge serves`).toBe(true);
      if (end === 'STOP') process.kill(running.supervisor_pid, 'SIGTERM');
      else process.kill(-running.runtime_pgid!, 'SIGKILL');
      expect(await waitForExit(spec.status_file, POLL)).toMatchObject({ phase: 'exited', stopped: end === 'STOP' });
      expect(existsSync(path.dirname(socket)), `${end}: the socket's directory is left`).toBe(false);
    }
  });

  it('a directory a crashed supervisor left is reclaimed by the next launch', async () => {
    const provider = await httpServer('provider');
    const socket = await makeBridgeSocketPath();
    cleanups.push(() => rmSync(path.dirname(socket), { recursive: true, force: true }));
    const { spec } = await containedProbe((s) => ({ kind: 'loopback', host: '127.0.0.1', port: provider, routes: [...ROOT_ROUTE], socket: s }), 'hold', {}, socket);
    const running = track(await launchSupervised(spec, bundles().supervisor));
    process.kill(running.supervisor_pid, 'SIGKILL');
    process.kill(-running.runtime_pgid!, 'SIGKILL');
    await waitUntil('the supervisor is gone', () => !isSameProcessAlive(running.supervisor_pid, running.supervisor_start_time));
    // Control: a killed supervisor removes nothing, so the socket stays. This process made the
    // directory and still runs; as the next launch of another CLI would, it is judged without that.
    expect(readdirSync(path.dirname(socket)).sort()).toEqual(['egress.sock', 'owner.json']);
    writeFileSync(path.join(path.dirname(socket), 'owner.json'), JSON.stringify({ pid: running.supervisor_pid, start_time: running.supervisor_start_time }));
    const next = await makeBridgeSocketPath();
    cleanups.push(() => rmSync(path.dirname(next), { recursive: true, force: true }));
    // A socket that does not answer within a second is judged served and kept (a loaded machine's
    // event loop can be that late: seen once in CI), so later launches look again, as here, bounded.
    const deadline = Date.now() + 15_000;
    while (existsSync(path.dirname(socket)) && Date.now() < deadline) await reclaimStaleSocketDirs(path.dirname(path.dirname(socket)));
    expect(existsSync(path.dirname(socket))).toBe(false);
  });

  it('keeps a credential out of every argv of the running sandbox, bridge included: it is only in environments, readable by their owner', async () => {
    const secret = 'sk-ant-test-supervised-0123456789abcdef';
    const provider = await httpServer('provider');
    const { spec } = await containedProbe((s) => ({ kind: 'loopback', host: '127.0.0.1', port: provider, routes: [...ROOT_ROUTE], socket: s }), 'hold', { ANTHROPIC_API_KEY: secret });
    const running = track(await launchSupervised(spec, bundles().supervisor));
    expect(running.phase).toBe('running');
    // The held command runs last, started by the inner bridge: once it is there, the whole tree is.
    const cmdlines = (): Map<number, string> => new Map(processTree(running.supervisor_pid).map((pid) => [pid, readOr(`/proc/${pid}/cmdline`)]));
    // The inner bridge's own argv names the command too: only a process that is not the bridge is the command.
    const isHeld = (cmdline: string): boolean => cmdline.includes('setInterval') && !cmdline.includes('sandbox-inner-bridge');
    await waitUntil('the contained command runs', () => [...cmdlines().values()].some(isHeld));
    const tree = cmdlines();
    // supervisor, bwrap, the namespace's init, the inner bridge, the command.
    expect(tree.size).toBeGreaterThanOrEqual(4);
    for (const [pid, cmdline] of tree) expect(cmdline, `pid ${pid}: ${cmdline}`).not.toContain(secret);
    const held = [...tree].find(([, cmdline]) => isHeld(cmdline))![0];
    for (const pid of [running.runtime_pid, held]) {
      expect(readOr(`/proc/${pid}/environ`).split('\0')).toContain(`ANTHROPIC_API_KEY=${secret}`);
      expect(statSync(`/proc/${pid}/environ`).mode & 0o077).toBe(0);
    }
    process.kill(running.supervisor_pid, 'SIGTERM');
    expect(await waitForExit(spec.status_file, POLL)).toMatchObject({ phase: 'exited', stopped: true });
  });

  it('a local provider serves its inference routes only: a streamed /v1/responses arrives whole and in order, /api/pull is refused and recorded', async () => {
    const events = Array.from({ length: 6 }, (_, n) => `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"part ${n}"}\n\n`);
    const provider = await fakeOllama(events);
    const pull: Check = { request: { port: provider.port, method: 'POST', path: '/api/pull', body: '{"model":"registry.example.test/exfil:latest","stream":true}' } };
    // Control: without the bridge's filter the same request reaches the provider, which pulls.
    expect(await runOnHost([pull])).toEqual([{ status: 200, body: '{"status":"success"}' }]);
    expect(provider.seen.splice(0)).toEqual(['POST /api/pull']);

    const responses: Check = { request: { port: provider.port, method: 'POST', path: '/v1/responses', body: '{"model":"qwen3-coder:30b","stream":true}', release: '/v1/models' } };
    const { spec } = await containedProbe((s) => ({ kind: 'loopback', host: '127.0.0.1', port: provider.port, routes: [...LOCAL_PROVIDER_ROUTES.ollama], socket: s }), [responses, pull]);
    track(await launchSupervised(spec, bundles().supervisor));
    expect(await waitForExit(spec.status_file, POLL), readText(spec.stderr_file)).toMatchObject({ exit_code: 0 });
    const [streamed, refused] = JSON.parse(readText(spec.stdout_file).trim()) as [{ status: number; body: string }, { status: number; body: string }];
    // The provider sends events 1..5 only once the probe asked for /v1/models after event 0 was in.
    expect(streamed).toEqual({ status: 200, body: events.join('') });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('POST /api/pull');
    expect(provider.seen).toEqual(['POST /v1/responses', 'GET /v1/models']);
    expect(await readEgressDenials(egressDenialsFile(spec.status_file))).toEqual([
      { host: '127.0.0.1', port: provider.port, reason: 'path_not_allowed', method: 'POST', path: '/api/pull' },
    ]);
  });

  it('no other local user can stop a launch by taking its socket path first: each launch gets a fresh 0700 directory, removed after', async () => {
    const provider = await httpServer('provider');
    const egress = (s: string): LaunchEgress => ({ kind: 'loopback', host: '127.0.0.1', port: provider, routes: [...ROOT_ROUTE], socket: s });
    // "Another user" (uid 1000) plants a file where a fixed, predictable socket name would be.
    const squatted = path.join(realpathSync(tempDir('citadel-squat-')), 'citadel-egress-0123456789abcdef.sock');
    chmodSync(path.dirname(squatted), 0o1777);
    writeFileSync(squatted, '');
    chownSync(squatted, 1000, 1000);
    // Control: at a fixed name in a shared directory the launch cannot go ahead (the planted file holds
    // the name, and the bridge refuses a directory others can write), so nothing runs.
    const blocked = await containedProbe(egress, [{ http: provider }], {}, squatted);
    track(await launchSupervised(blocked.spec, bundles().supervisor));
    expect(await waitForExit(blocked.spec.status_file, POLL)).toMatchObject({ runtime_pid: null, spawn_error: EGRESS_BRIDGE_FAILED });

    const socket = await makeBridgeSocketPath();
    cleanups.push(() => rmSync(path.dirname(socket), { recursive: true, force: true }));
    const dir = statSync(path.dirname(socket));
    expect([dir.mode & 0o7777, dir.uid, dir.isDirectory()]).toEqual([0o700, process.getuid?.(), true]);
    const { spec } = await containedProbe(egress, [{ http: provider }], {}, socket);
    track(await launchSupervised(spec, bundles().supervisor));
    expect(await waitForExit(spec.status_file, POLL), readText(spec.stderr_file)).toMatchObject({ exit_code: 0, spawn_error: null });
    expect(JSON.parse(readText(spec.stdout_file).trim())).toEqual([{ ok: true, body: 'provider' }]);
    expect(existsSync(path.dirname(socket))).toBe(false);
  });

  it('spawns nothing when the bridge cannot listen', async () => {
    const { spec, socket } = await containedProbe((s) => ({ kind: 'loopback', host: '127.0.0.1', port: 9, socket: s }), [{ http: 9 }]);
    writeFileSync(socket, 'not a socket');
    track(await launchSupervised(spec, bundles().supervisor));
    expect(await waitForExit(spec.status_file, POLL)).toMatchObject({ phase: 'exited', runtime_pid: null, spawn_error: EGRESS_BRIDGE_FAILED });
    expect(readText(spec.stdout_file)).toBe('');
  });
});
