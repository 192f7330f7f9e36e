import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { withLaunchFds } from './launch-fds';

const PROBE_TIMEOUT_MS = 5000;
const MAX_OUTPUT_BYTES = 64 * 1024;

export interface ProbeResult {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** The first executable file called `name` in PATH's absolute entries, or null. */
export async function findOnPath(name: string, env: Readonly<Record<string, string | undefined>>): Promise<string | null> {
  for (const dir of (env['PATH'] ?? '').split(':').filter((entry) => path.isAbsolute(entry))) {
    const candidate = path.join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

export async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * Runs a probe with exactly `env` (empty unless given), `fdFiles` open as its fds 3, 4, … (a
 * sandbox launch's, SandboxLaunch.fdFiles) and a time limit; never throws. ok: exit code 0.
 */
export function runProbe(command: string, args: readonly string[], env: Readonly<Record<string, string>> = {}, fdFiles: readonly string[] = []): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const output = { stdout: '', stderr: '' };
    const collect = (stream: keyof typeof output) => (chunk: string): void => {
      output[stream] = (output[stream] + chunk).slice(0, MAX_OUTPUT_BYTES);
    };
    let failure: string | null = null;
    try {
      const child = withLaunchFds(fdFiles, (fds) =>
        spawn(command, args, { env: { ...env }, timeout: PROBE_TIMEOUT_MS, shell: false, stdio: ['ignore', 'pipe', 'pipe', ...fds] }),
      );
      child.stdout?.setEncoding('utf8').on('data', collect('stdout'));
      child.stderr?.setEncoding('utf8').on('data', collect('stderr'));
      child.on('error', (error) => (failure = error.message));
      child.on('close', (code, signal) => {
        const ok = failure === null && code === 0;
        const why = failure ?? (signal === null ? `exit code ${code}` : `killed by ${signal}`);
        resolve({ ok, stdout: output.stdout, stderr: output.stderr || (ok ? '' : why) });
      });
    } catch (error) {
      resolve({ ok: false, stdout: '', stderr: error instanceof Error ? error.message : String(error) });
    }
  });
}
