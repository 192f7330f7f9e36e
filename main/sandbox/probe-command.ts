import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';

const PROBE_TIMEOUT_MS = 5000;

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

/** Runs a probe with exactly `env` (empty unless given) and a time limit; never throws. */
export function runProbe(command: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(command, args, { env: { ...env }, timeout: PROBE_TIMEOUT_MS, shell: false, maxBuffer: 64 * 1024 }, (error, stdout, stderr) => {
      resolve({ ok: error === null, stdout: stdout.toString(), stderr: stderr.toString() || (error?.message ?? '') });
    });
  });
}
