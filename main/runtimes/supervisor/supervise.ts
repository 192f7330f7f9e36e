import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, createReadStream, openSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { startHostBridge, type HostBridge } from '../../sandbox/egress/host-bridge';
import { removeSocketDirSync } from '../../sandbox/egress/socket-dir';
import { withLaunchFds } from '../../sandbox/launch-fds';
import { PRIVATE_FILE_MODE, writeJsonDurably } from '../../store/atomic-file';
import { isProcessGroupAlive } from '../os-process/process-liveness';
import { processStartTime } from '../os-process/proc-stat';
import { terminateProcessGroup } from '../os-process/terminate-process-group';
import type { GatewaySpec } from '../../sandbox/gateway/gateway-spec';
import { denialRecorder, egressDenialsFile } from './egress-denials';
import { serveGateway, type ServedGateway } from './serve-gateway';
import { DEFAULT_OUTPUT_CAP_BYTES, type LaunchSpec } from './launch-spec';
import { captureRuntimeOutput, type RuntimeOutput } from './output-log';
import type { ExitedStatus, RunningStatus } from './run-status';

interface RunState {
  stopped: boolean;
  timedOut: boolean;
  leaderExited: boolean;
  /** Ends the runtime's group; null until the runtime exists. */
  terminate: (() => Promise<void>) | null;
}

/**
 * Runs one runtime to its end and records it in the status file: `running` once it is spawned,
 * `exited` once its whole process group is gone. The runtime leads its own process group and gets
 * pipes, never a descriptor of a host file: through /proc/self/fd a file descriptor could be
 * reopened for writing, and the instruction and logs are evidence outside its sandbox. This process
 * feeds the stdin file into its stdin and appends its output to the logs, capped, before the final
 * record; once this process is gone the runtime's next write fails (EPIPE), so nothing reaches a log.
 * SIGTERM to this process is STOP; it, or the time limit, ends the group (TERM, then KILL after the grace).
 * A contained run's egress bridge is served here, from before the spawn until the group is gone (this
 * process outlives the CLI that launched it); the final record is written only once it is closed.
 */
export async function supervise(spec: LaunchSpec): Promise<void> {
  const state: RunState = { stopped: false, timedOut: false, leaderExited: false, terminate: null };
  // Installed before the spawn: without a listener SIGTERM would kill this process and orphan the runtime.
  process.on('SIGTERM', () => {
    if (state.leaderExited) return;
    state.stopped = true;
    void state.terminate?.();
  });

  const supervisor = { supervisor_pid: process.pid, supervisor_start_time: processStartTime(process.pid) };
  const started = new Date();
  const clockAtStart = performance.now();
  const ended = () => ({ ended_at: new Date().toISOString(), duration_ms: Math.round(performance.now() - clockAtStart) });

  // Ends the run from the gateway's side (budget spent, credential gone): like STOP, but not the operator's.
  const endRun = (): void => {
    if (!state.leaderExited) void state.terminate?.();
  };
  const bridge = spec.gateway ? await openGateway(spec.gateway, spec.status_file, endRun) : await openEgressBridge(spec);
  const spawned = typeof bridge === 'string' ? { spawnError: bridge } : await spawnRuntime(spec);
  const closeBridge = async (): Promise<void> => {
    if (typeof bridge !== 'string') await bridge?.close();
  };
  if ('spawnError' in spawned) {
    await closeBridge();
    const record: ExitedStatus = {
      phase: 'exited',
      ...supervisor,
      started_at: started.toISOString(),
      runtime_pid: null,
      runtime_pgid: null,
      runtime_start_time: null,
      exit_code: null,
      signal: null,
      timed_out: false,
      stopped: false,
      spawn_error: spawned.spawnError,
      ...ended(),
      output: null,
    };
    await writeJsonDurably(spec.status_file, record);
    return;
  }

  const { pid, startTime, exit, output } = spawned;
  const running: RunningStatus = {
    phase: 'running',
    ...supervisor,
    started_at: started.toISOString(),
    runtime_pid: pid,
    runtime_pgid: pid,
    runtime_start_time: startTime,
  };
  let termination: Promise<void> | undefined;
  const terminate = () =>
    (termination ??= terminateProcessGroup(pid, { graceMs: spec.kill_grace_ms, settleMs: Infinity }).then(() => undefined));
  state.terminate = terminate;
  const timer = setTimeout(() => {
    state.timedOut = true;
    void terminate();
  }, spec.timeout_ms);
  if (state.stopped) void terminate();

  try {
    await writeJsonDurably(spec.status_file, running);
  } catch (error) {
    // A runtime nobody can see or stop must not keep running.
    await terminate();
    await closeBridge();
    throw error;
  }

  const { code, signal } = await exit;
  state.leaderExited = true;
  clearTimeout(timer);
  const end = ended();
  // Processes the runtime left in its group must not keep writing after the final record.
  if (termination !== undefined || isProcessGroupAlive(pid)) await terminate();
  await closeBridge();
  // Written before the record: a collector reads the logs as soon as it sees `exited`.
  const outputRecord = await output.finish();
  const record: ExitedStatus = {
    ...running,
    phase: 'exited',
    exit_code: code,
    signal,
    timed_out: state.timedOut,
    stopped: state.stopped,
    spawn_error: null,
    ...end,
    output: outputRecord,
  };
  await writeJsonDurably(spec.status_file, record);
}

/** The spawn error a run gets when its egress bridge cannot be served: nothing is spawned without it. */
export const EGRESS_BRIDGE_FAILED = 'EGRESS_BRIDGE_FAILED';

/** The run's provider gateway, or the spawn error when it cannot be served: nothing is spawned without it. */
async function openGateway(gateway: GatewaySpec, statusFile: string, endRun: () => void): Promise<ServedGateway | string> {
  try {
    return await serveGateway(gateway, statusFile, endRun);
  } catch {
    return EGRESS_BRIDGE_FAILED;
  }
}

/** The run's host bridge, null without one, or the spawn error when it cannot listen. */
async function openEgressBridge(spec: LaunchSpec): Promise<HostBridge | null | string> {
  if (spec.egress_bridge === undefined || spec.egress_bridge === null) return null;
  const socketPath = spec.egress_bridge.socket_path;
  let bridge: HostBridge;
  try {
    bridge = await startHostBridge({ socketPath, target: spec.egress_bridge.target, onDenial: denialRecorder(egressDenialsFile(spec.status_file)) });
  } catch {
    return EGRESS_BRIDGE_FAILED;
  }
  // Should this process end before closing it (an uncaught error), the socket and its directory go with it.
  process.once('exit', () => removeSocketDirSync(socketPath));
  return bridge;
}

interface RuntimeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

type Spawned = { pid: number; startTime: number | null; exit: Promise<RuntimeExit>; output: RuntimeOutput } | { spawnError: string };

async function spawnRuntime(spec: LaunchSpec): Promise<Spawned> {
  const opened: number[] = [];
  const open = (file: string, flags: string, mode?: number): number => {
    const fd = openSync(file, flags, mode);
    opened.push(fd);
    return fd;
  };
  const closeOpened = () => opened.forEach((fd) => closeSync(fd));
  let child: ChildProcessByStdio<Writable, Readable, Readable>;
  let files: { stdin: number; stdout: number; stderr: number };
  try {
    files = {
      stdin: open(spec.stdin_file, 'r'),
      // Output files hold whatever the runtime prints, which may include secrets: owner-only.
      stdout: open(spec.stdout_file, 'a', PRIVATE_FILE_MODE),
      stderr: open(spec.stderr_file, 'a', PRIVATE_FILE_MODE),
    };
    // Extra files become the child's fds 3, 4, … (read-only); this process keeps no copy.
    child = withLaunchFds(
      spec.extra_fd_files ?? [],
      (extra) =>
        // Typed by hand: spawn's overloads type stdio pipes only for all-'pipe' stdio arrays.
        spawn(spec.command, spec.args, {
          cwd: spec.cwd,
          env: spec.env,
          stdio: ['pipe', 'pipe', 'pipe', ...extra],
          detached: true,
          shell: false,
          windowsHide: true,
        }) as ChildProcessByStdio<Writable, Readable, Readable>,
    );
  } catch (error) {
    closeOpened();
    return { spawnError: errnoCode(error) };
  }
  if (child.pid === undefined) {
    const [error] = (await once(child, 'error')) as [NodeJS.ErrnoException];
    closeOpened();
    return { spawnError: errnoCode(error) };
  }
  // Read synchronously: until this process reaps the child, its /proc entry stays readable.
  const startTime = processStartTime(child.pid);
  const exit = new Promise<RuntimeExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  // A runtime that exits or closes its stdin before reading it all just does not get the rest.
  pipeline(createReadStream(spec.stdin_file, { fd: files.stdin }), child.stdin).catch(() => undefined);
  const output = captureRuntimeOutput(child, files, spec.output_cap_bytes ?? DEFAULT_OUTPUT_CAP_BYTES);
  return { pid: child.pid, startTime, exit, output };
}

function errnoCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
}
