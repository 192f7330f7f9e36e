import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { startHostBridge, type HostBridge } from '../../sandbox/egress/host-bridge';
import { PRIVATE_FILE_MODE, writeJsonDurably } from '../../store/atomic-file';
import { isProcessGroupAlive } from '../process-control/process-liveness';
import { processStartTime } from '../process-control/proc-stat';
import { terminateProcessGroup } from '../process-control/terminate-process-group';
import { denialRecorder, egressDenialsFile } from './egress-denials';
import type { LaunchSpec } from './launch-spec';
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
 * `exited` once its whole process group is gone. The runtime leads its own process group and
 * writes straight into the output files, so its output does not depend on this process.
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

  const bridge = await openEgressBridge(spec);
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
    };
    await writeJsonDurably(spec.status_file, record);
    return;
  }

  const { pid, startTime, exit } = spawned;
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
  const record: ExitedStatus = {
    ...running,
    phase: 'exited',
    exit_code: code,
    signal,
    timed_out: state.timedOut,
    stopped: state.stopped,
    spawn_error: null,
    ...end,
  };
  await writeJsonDurably(spec.status_file, record);
}

/** The spawn error a run gets when its egress bridge cannot be served: nothing is spawned without it. */
export const EGRESS_BRIDGE_FAILED = 'EGRESS_BRIDGE_FAILED';

/** The run's host bridge, null without one, or the spawn error when it cannot listen. */
async function openEgressBridge(spec: LaunchSpec): Promise<HostBridge | null | string> {
  if (spec.egress_bridge === undefined || spec.egress_bridge === null) return null;
  try {
    return await startHostBridge({
      socketPath: spec.egress_bridge.socket_path,
      target: spec.egress_bridge.target,
      onDenial: denialRecorder(egressDenialsFile(spec.status_file)),
    });
  } catch {
    return EGRESS_BRIDGE_FAILED;
  }
}

interface RuntimeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

type Spawned = { pid: number; startTime: number | null; exit: Promise<RuntimeExit> } | { spawnError: string };

async function spawnRuntime(spec: LaunchSpec): Promise<Spawned> {
  const fds: number[] = [];
  try {
    fds.push(openSync(spec.stdin_file, 'r'));
    // Output files hold whatever the runtime prints, which may include secrets: owner-only.
    fds.push(openSync(spec.stdout_file, 'a', PRIVATE_FILE_MODE));
    fds.push(openSync(spec.stderr_file, 'a', PRIVATE_FILE_MODE));
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: fds,
      detached: true,
      shell: false,
      windowsHide: true,
    });
    if (child.pid === undefined) {
      const [error] = (await once(child, 'error')) as [NodeJS.ErrnoException];
      return { spawnError: errnoCode(error) };
    }
    const exit = new Promise<RuntimeExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    // Read synchronously: until this process reaps the child, its /proc entry stays readable.
    return { pid: child.pid, startTime: processStartTime(child.pid), exit };
  } catch (error) {
    return { spawnError: errnoCode(error) };
  } finally {
    // The child holds its own copies of the descriptors.
    for (const fd of fds) closeSync(fd);
  }
}

function errnoCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
}
