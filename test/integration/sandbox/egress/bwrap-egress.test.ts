import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { egressInside } from '../../../../main/sandbox/egress/egress-environment';
import type { EgressDenial } from '../../../../main/sandbox/egress/egress-denial';
import type { EgressTarget } from '../../../../main/sandbox/egress/egress-target';
import { startHostBridge, type HostBridge } from '../../../../main/sandbox/egress/host-bridge';
import { innerBridgeArgv } from '../../../../main/sandbox/egress/inner-bridge-args';
import { REPO_ROOT } from '../../../support/run-cli';
import { useTempDirs } from '../../../support/temp-dir';

const BWRAP = '/usr/bin/bwrap';
const PROBE = path.join(REPO_ROOT, 'test/integration/sandbox/egress/egress-probe.mjs');
const NODE = realpathSync(process.execPath);

let buildDir = '';
let innerBridge = '';
beforeAll(async () => {
  buildDir = realpathSync(mkdtempSync(path.join(tmpdir(), 'citadel-egress-build-')));
  innerBridge = path.join(buildDir, 'inner-bridge.mjs');
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: ['main/sandbox/egress/inner-bridge.ts'],
    outfile: innerBridge,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
  });
});
afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

const tempDir = useTempDirs();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[], onStdout: (text: string, child: ChildProcess) => void = () => undefined): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], shell: false });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      onStdout(stdout, child);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * The sandbox of issue #11 reduced to what egress needs: every namespace unshared (so its own loopback
 * only), no capabilities, /usr and the node binary read-only, the bridge directory and the test's own
 * files bound in. This host has /lib, /lib64 and /bin as symlinks into /usr; the sandbox mirrors that.
 * The bridge directory is bound read-only: connecting to a unix socket needs no write access to its
 * mount, and the sandbox then cannot plant anything next to the socket.
 */
function bwrapArgv(bridgeDir: string, env: Readonly<Record<string, string>>, command: readonly string[]): string[] {
  const nodeDir = path.dirname(NODE);
  return [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--symlink',
    'usr/bin',
    '/bin',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    ...(nodeDir.startsWith('/usr/') ? [] : ['--ro-bind', nodeDir, nodeDir]),
    '--ro-bind',
    bridgeDir,
    bridgeDir,
    '--ro-bind',
    buildDir,
    buildDir,
    '--ro-bind',
    REPO_ROOT,
    REPO_ROOT,
    '--clearenv',
    ...Object.entries(env).flatMap(([name, value]) => ['--setenv', name, value]),
    '--',
    ...command,
  ];
}

type Check = { http: number } | { connect: string; hold?: boolean };
interface Outcome {
  ok: boolean;
  body?: string;
  code?: string;
  status?: number | null;
}

const runArgv = (argv: readonly string[]): Promise<Finished> => run(argv[0] as string, argv.slice(1));
const probe = (checks: readonly Check[]): string[] => [NODE, PROBE, JSON.stringify(checks)];
const bridged = (socketPath: string, listenPort: number, command: readonly string[]): string[] => [
  NODE,
  innerBridge,
  ...innerBridgeArgv({ listenPort, socketPath, command: command[0] as string, args: command.slice(1) }),
];
const outcomes = (finished: Finished): Outcome[] => {
  expect(finished, finished.stderr).toMatchObject({ code: 0 });
  return JSON.parse(finished.stdout.trim().split('\n').at(-1) ?? '') as Outcome[];
};

async function httpServer(answer: string): Promise<number> {
  const server: Server = createServer((_request, response) => response.end(answer));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  cleanups.push(() => void server.closeAllConnections());
  return (server.address() as AddressInfo).port;
}

async function hostBridge(target: EgressTarget, upstreamPort?: number) {
  const bridgeDir = realpathSync(tempDir('citadel-egress-'));
  const denials: EgressDenial[] = [];
  const dialled: string[] = [];
  const bridge: HostBridge = await startHostBridge({
    socketPath: path.join(bridgeDir, 'egress.sock'),
    target,
    onDenial: (denial) => denials.push(denial),
    // Cloud mode never reaches a real host here: every allowed tunnel goes to the local upstream.
    ...(upstreamPort === undefined
      ? {}
      : {
          connect: (host: string, port: number) => {
            dialled.push(`${host}:${port}`);
            return connect({ host: '127.0.0.1', port: upstreamPort, allowHalfOpen: true });
          },
        }),
  });
  cleanups.push(() => bridge.close());
  return { bridge, bridgeDir, denials, dialled };
}

/** Processes on this host whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.skipIf(process.platform !== 'linux')('egress through real bubblewrap', () => {
  it('has bubblewrap to test with', () => {
    expect(existsSync(BWRAP), `${BWRAP} is missing: apt-get install -y bubblewrap`).toBe(true);
  });

  it('local provider: the bridged port answers inside, another host port does not, and without the bridge nothing does', async () => {
    const provider = await httpServer('provider');
    const other = await httpServer('other');
    // The probe's one request is `GET /`: the provider's only route here.
    const target: EgressTarget = { kind: 'loopback', host: '127.0.0.1', port: provider, routes: [{ method: 'GET', path: '/' }] };
    const { bridge, bridgeDir } = await hostBridge(target);
    const inside = egressInside(target);
    const checks: Check[] = [{ http: provider }, { http: other }];

    // Control: on the host both ports answer, so a refusal inside is the sandbox's doing.
    expect(outcomes(await runArgv(probe(checks)))).toEqual([
      { ok: true, body: 'provider' },
      { ok: true, body: 'other' },
    ]);
    const contained = await run(BWRAP, bwrapArgv(bridgeDir, inside.env, bridged(bridge.socketPath, inside.listenPort, probe(checks))));
    expect(outcomes(contained)).toEqual([
      { ok: true, body: 'provider' },
      { ok: false, code: 'ECONNREFUSED' },
    ]);
    expect(inside.providerAuthority).toBe(`127.0.0.1:${provider}`);
    const unbridged = await run(BWRAP, bwrapArgv(bridgeDir, inside.env, probe(checks)));
    expect(outcomes(unbridged)).toEqual([
      { ok: false, code: 'ECONNREFUSED' },
      { ok: false, code: 'ECONNREFUSED' },
    ]);
  });

  it('cloud runtime: CONNECT to its API host tunnels, example.com gets 403 and a denial, the host port stays unreachable', async () => {
    const upstream = await httpServer('fake api.anthropic.com');
    const target: EgressTarget = { kind: 'cloud', hosts: ['api.anthropic.com'] };
    const { bridge, bridgeDir, denials, dialled } = await hostBridge(target, upstream);
    const inside = egressInside(target);
    const checks: Check[] = [{ connect: 'api.anthropic.com:443' }, { connect: 'example.com:443' }, { http: upstream }];

    const contained = await run(BWRAP, bwrapArgv(bridgeDir, inside.env, bridged(bridge.socketPath, inside.listenPort, probe(checks))));
    expect(outcomes(contained)).toEqual([
      { ok: true, status: 200, body: 'fake api.anthropic.com' },
      { ok: false, status: 403, body: '' },
      { ok: false, code: 'ECONNREFUSED' },
    ]);
    expect(dialled).toEqual(['api.anthropic.com:443']);
    expect(denials).toEqual([{ host: 'example.com', port: 443, reason: 'host_not_allowed' }]);

    // Without the inner bridge the proxy address inside leads nowhere.
    expect(outcomes(await run(BWRAP, bwrapArgv(bridgeDir, inside.env, probe(checks.slice(0, 1)))))).toEqual([
      { ok: false, code: 'ECONNREFUSED', status: null },
    ]);
  });

  it('closing the host bridge ends a tunnel that is open inside the sandbox', async () => {
    const upstream = await httpServer('unused');
    const target: EgressTarget = { kind: 'cloud', hosts: ['api.anthropic.com'] };
    const { bridge, bridgeDir } = await hostBridge(target, upstream);
    const inside = egressInside(target);
    let closing: Promise<void> | null = null;
    const contained = await run(
      BWRAP,
      bwrapArgv(bridgeDir, inside.env, bridged(bridge.socketPath, inside.listenPort, probe([{ connect: 'api.anthropic.com:443', hold: true }]))),
      (stdout) => {
        if (closing === null && stdout.includes('tunnel-open\n')) closing = bridge.close();
      },
    );
    expect(closing).not.toBeNull();
    await closing;
    expect(outcomes(contained)).toEqual([{ ok: true, status: 200, body: '' }]);
  });

  it("the inner bridge exits with the command's code and nothing started inside outlives it", async () => {
    const { bridge, bridgeDir } = await hostBridge({ kind: 'loopback', host: '127.0.0.1', port: await httpServer('unused') });
    const marker = `citadel-egress-orphan-${process.pid}-${Date.now()}`;
    // The command leaves a detached child of its own behind, then fails with 7.
    const command = [
      NODE,
      '-e',
      `require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', '${marker}'], { detached: true, stdio: 'ignore' }).unref(); process.exit(7)`,
    ];
    const contained = await run(BWRAP, bwrapArgv(bridgeDir, {}, bridged(bridge.socketPath, 40_000, command)));
    expect(contained, contained.stderr).toMatchObject({ code: 7, signal: null });
    // bwrap can report the exit a moment before the kernel has finished ending the namespace's processes.
    await expect.poll(() => processesWith(marker), { timeout: 2000 }).toEqual([]);
    expect(processesWith(bridge.socketPath)).toEqual([]);

    // Control: the same command on the host does leave its child running (ended here by its pid).
    const uncontained = await runArgv(bridged(bridge.socketPath, await freePort(), command));
    expect(uncontained.code, uncontained.stderr).toBe(7);
    const survivors = processesWith(marker);
    for (const pid of survivors) process.kill(pid, 'SIGKILL');
    expect(survivors).toHaveLength(1);
    // The inner bridge itself did not stay behind on the host either.
    expect(processesWith(bridge.socketPath)).toEqual([]);
  });

  it('a command ended by a signal ends the inner bridge by the same signal', async () => {
    const { bridge, bridgeDir } = await hostBridge({ kind: 'loopback', host: '127.0.0.1', port: await httpServer('unused') });
    const command = [NODE, '-e', "process.kill(process.pid, 'SIGTERM')"];
    expect(await runArgv(bridged(bridge.socketPath, await freePort(), command))).toMatchObject({ code: null, signal: 'SIGTERM' });
    // bwrap reports a signalled child as 128 + its number.
    expect(await run(BWRAP, bwrapArgv(bridgeDir, {}, bridged(bridge.socketPath, 40_000, command)))).toMatchObject({ code: 128 + 15 });
  });

  it('passes SIGTERM on to the command and exits as the command then does', async () => {
    const { bridge } = await hostBridge({ kind: 'loopback', host: '127.0.0.1', port: await httpServer('unused') });
    const command = [NODE, '-e', "process.on('SIGTERM', () => process.exit(3)); process.stdout.write('ready\\n'); setInterval(() => {}, 1000)"];
    let signalled = false;
    const finished = await run(NODE, bridged(bridge.socketPath, await freePort(), command).slice(1), (stdout, child) => {
      if (!signalled && stdout.includes('ready\n')) signalled = child.kill('SIGTERM');
    });
    expect(signalled).toBe(true);
    expect(finished, finished.stderr).toMatchObject({ code: 3, signal: null });
  });

  it('refuses unusable arguments with 125 and a missing command with 127, before starting anything', async () => {
    const { bridge } = await hostBridge({ kind: 'loopback', host: '127.0.0.1', port: await httpServer('unused') });
    const bad = await run(NODE, [innerBridge, '--listen', 'x', '--socket', bridge.socketPath, '--', NODE, '-e', '']);
    expect(bad).toMatchObject({ code: 125 });
    expect(bad.stderr).toContain('--listen needs a port');
    const missing = await runArgv(bridged(bridge.socketPath, await freePort(), ['/nonexistent/citadel-runtime']));
    expect(missing).toMatchObject({ code: 127 });
    expect(missing.stderr).toContain('cannot start /nonexistent/citadel-runtime');
  });
});

/** A loopback port nothing listens on right now, for inner bridges run on the host itself. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
