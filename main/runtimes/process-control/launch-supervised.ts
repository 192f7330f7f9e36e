import { spawn, type ChildProcess } from 'node:child_process';
import { lstat } from 'node:fs/promises';
import type { Socket } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CitadelError, isCitadelError } from '../../../shared/errors';
import { zodViolations } from '../../../shared/zod-violations';
import { writePrivateJson } from '../../store/atomic-file';
import { LaunchSpecSchema, type LaunchSpec } from '../supervisor/launch-spec';
import type { RunStatus } from '../supervisor/run-status';
import { readStatus } from './read-status';

/** Node start-up on a loaded machine plus the supervisor's first durable write, with room to spare. */
const START_TIMEOUT_MS = 15_000;
const START_POLL_MS = 25;

/** The launch spec sits beside its status file, so one run's files stay together. */
export function launchSpecFileFor(statusFile: string): string {
  return statusFile.replace(/(\.json)?$/, '.launch.json');
}

/**
 * A detached supervisor started ahead of its launch, waiting (loaded, idle) for the hand-over of its
 * launch spec: Node's start-up, most of a launch's time, is then paid outside the journaled launch
 * and can overlap other work. Until `launchSupervised` hands over, it reads nothing and starts
 * nothing; `release` (or this process ending) ends it without a trace.
 */
export interface StandbySupervisor {
  readonly statusFile: string;
  /** undefined when it could not be spawned at all. */
  readonly pid: number | undefined;
  /** Why it ended, once it has (spawn error, exit code or signal). */
  ended(): string | undefined;
  /** Ends a standby that will not be handed a launch; harmless after a hand-over. */
  release(): void;
}

interface HandOver extends StandbySupervisor {
  handOver(): void;
}

/**
 * Starts the supervisor of `statusFile`'s run in standby, in `cwd` (any existing directory: the
 * run's own need not exist yet).
 */
export function startStandbySupervisor(statusFile: string, cwd: string, supervisorScriptPath: string, nodeExecPath: string = process.execPath): StandbySupervisor {
  return standby(statusFile, cwd, supervisorScriptPath, nodeExecPath);
}

function standby(statusFile: string, cwd: string, supervisorScriptPath: string, nodeExecPath: string): HandOver {
  const supervisor: ChildProcess = spawn(nodeExecPath, [supervisorScriptPath, '--standby', launchSpecFileFor(statusFile)], {
    detached: true,
    // stdin is the hand-over channel, nothing else: no output comes back this way.
    stdio: ['pipe', 'ignore', 'ignore'],
    shell: false,
    // Nothing of this process's environment (NODE_OPTIONS included) reaches the supervisor.
    env: {},
    cwd,
  });
  supervisor.unref();
  // A pipe, so a socket: neither it nor the process keeps this one alive, and when this one exits
  // the pipe closes, which ends a standby that was not handed over.
  const channel = supervisor.stdin as Socket | null;
  channel?.unref();
  // A supervisor gone before the hand-over makes the write fail (EPIPE); `ended` reports why.
  channel?.on('error', () => undefined);
  let ended: string | undefined;
  supervisor.once('error', (error: NodeJS.ErrnoException) => (ended = error.code ?? error.message));
  supervisor.once('exit', (code, signal) => (ended = signal ?? `exit code ${code}`));
  return {
    statusFile,
    pid: supervisor.pid,
    ended: () => ended,
    handOver: () => {
      channel?.end('\n');
    },
    release: () => {
      if (channel !== null && !channel.writableEnded) channel.end();
    },
  };
}

/**
 * Starts a runtime under a detached supervisor that outlives this process, and returns the
 * supervisor's first record: `running`, or `exited` when the runtime could not be spawned.
 * SUPERVISOR_START_UNCERTAIN means no record appeared in time and the supervisor may still start
 * the runtime: a launch is not repeatable, so the caller must not retry it (decisions D11).
 * With `standbySupervisor` (started by `startStandbySupervisor` for the same status file) the
 * spec is handed to it instead of a supervisor started now.
 */
export async function launchSupervised(
  spec: LaunchSpec,
  supervisorScriptPath: string,
  nodeExecPath: string = process.execPath,
  standbySupervisor?: StandbySupervisor,
): Promise<RunStatus> {
  const parsed = LaunchSpecSchema.safeParse(spec);
  if (!parsed.success) {
    throw new CitadelError('LAUNCH_SPEC_INVALID', 'the launch spec is invalid', {
      violations: zodViolations(parsed.error.issues, [], spec),
    });
  }
  const statusFile = parsed.data.status_file;
  // An old record would be read as this run's; a second launch into the same place is refused.
  if (await exists(statusFile)) {
    throw new CitadelError('RUN_STATUS_EXISTS', `run status ${statusFile} already exists`, { details: { status_file: statusFile } });
  }
  if (standbySupervisor !== undefined && standbySupervisor.statusFile !== statusFile) {
    throw new CitadelError('INTERNAL_ERROR', `the standby supervisor of ${standbySupervisor.statusFile} cannot launch ${statusFile}`);
  }
  const specFile = launchSpecFileFor(statusFile);
  // The spec carries the runtime's environment, credentials included: owner-only.
  await writePrivateJson(specFile, parsed.data);

  const supervisor = (standbySupervisor as HandOver | undefined) ?? standby(statusFile, path.dirname(statusFile), supervisorScriptPath, nodeExecPath);
  supervisor.handOver();

  const giveUpAt = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    // Noted before reading: a supervisor writes its record before it exits, so an exit seen
    // here and no record read after it means it never wrote one.
    const endedBeforeRead = supervisor.ended();
    const status = await readStatusIfWritten(statusFile);
    if (status !== null) return status;
    if (endedBeforeRead !== undefined) {
      throw new CitadelError('SUPERVISOR_START_FAILED', `the supervisor ended without a status record (${endedBeforeRead})`, {
        details: { reason: endedBeforeRead },
      });
    }
    if (performance.now() >= giveUpAt) {
      throw new CitadelError('SUPERVISOR_START_UNCERTAIN', `the supervisor wrote no status within ${START_TIMEOUT_MS} ms`, {
        details: { supervisor_pid: supervisor.pid ?? null, status_file: statusFile },
      });
    }
    await sleep(START_POLL_MS);
  }
}

async function readStatusIfWritten(statusFile: string): Promise<RunStatus | null> {
  try {
    return await readStatus(statusFile);
  } catch (error) {
    if (isCitadelError(error) && error.code === 'RUN_STATUS_MISSING') return null;
    throw error;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
