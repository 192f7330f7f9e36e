import { spawn } from 'node:child_process';
import { sha256Digest } from '../../shared/digest';
import type { VerifierCommand } from '../../shared/fork/workflow';
import { withLaunchFds } from '../sandbox/launch-fds';

export interface VerifierCommandResult {
  readonly exit_code: number | null;
  readonly timed_out: boolean;
  readonly spawn_error: string | null;
  readonly duration_ms: number;
  readonly output: Buffer;
  readonly output_digest: string;
}

const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
const KILL_GRACE_MS = 2000;
const ABORT_SETTLE_MS = 2000;

/**
 * The verifier's command as a sandbox backend wraps it (issue 11): spawned instead of the bare
 * command, with exactly `env` (the verifier's policy environment, which the backend passes on; no
 * value of it is in `args`).
 */
export interface ContainedVerifierLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Opened read-only as the launch's fds 3, 4, … (the backend's SandboxLaunch.fdFiles). */
  readonly fdFiles: readonly string[];
}

/**
 * Runs the workflow verifier (decisions D7): a bare executable on PATH, literal args, shell: false,
 * in the branch worktree, with a timeout that kills its whole process group. Contained, the group
 * is the sandbox's leader, whose end ends everything inside (its PID namespace dies with it).
 * `signal` (a STOP of a setup step) ends the group the same way, no sooner than ABORT_SETTLE_MS after the spawn.
 */
export function runVerifierCommand(
  verifier: VerifierCommand,
  cwd: string,
  env: Readonly<Record<string, string>>,
  contained: ContainedVerifierLaunch | null = null,
  signal?: AbortSignal,
): Promise<VerifierCommandResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    let spawnError: string | null = null;
    const [command, args, childEnv, fdFiles] =
      contained === null ? [verifier.command, verifier.args, { ...env }, []] : [contained.command, contained.args, { ...contained.env }, contained.fdFiles];
    // A launch file Citadel just wrote that cannot be opened rejects, as a spawn that throws does.
    const child = withLaunchFds(fdFiles, (fds) => spawn(command, args, { cwd, env: childEnv, shell: false, detached: true, stdio: ['ignore', 'pipe', 'pipe', ...fds] }));
    const collect = (chunk: Buffer): void => {
      if (size >= MAX_OUTPUT_BYTES) return;
      chunks.push(chunk.subarray(0, MAX_OUTPUT_BYTES - size));
      size += chunk.length;
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const killGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // the group is already gone
      }
    };
    const end = (): void => {
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      end();
    }, verifier.timeout_seconds * 1000);
    // Never in the launch's first moments: a sandbox ended while it starts can leave its inside
    // running in a session of its own (bubblewrap's inside arms its die-with-parent only once set up).
    let stopping: NodeJS.Timeout | undefined;
    const stop = (): void => {
      stopping = setTimeout(end, Math.max(0, started + ABORT_SETTLE_MS - performance.now()));
    };
    if (signal?.aborted === true) stop();
    signal?.addEventListener('abort', stop, { once: true });
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError = error.code ?? 'spawn_failed';
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      clearTimeout(stopping);
      signal?.removeEventListener('abort', stop);
      const output = Buffer.concat(chunks);
      resolve({
        exit_code: spawnError === null ? code : null,
        timed_out: timedOut,
        spawn_error: spawnError,
        duration_ms: Math.round(performance.now() - started),
        output,
        output_digest: sha256Digest(output),
      });
    });
  });
}
