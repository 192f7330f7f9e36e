import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI_PATH } from '../../support/run-cli';

export interface BoundedRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Killed at the deadline: the command hung. */
  readonly timedOut: boolean;
  /** The CLI process's own peak resident set (not its git or runtime children), in bytes. */
  readonly peakRssBytes: number | null;
  readonly ms: number;
}

// Loaded with --require into the CLI process only (children never see it): on exit it writes the
// process's own peak resident set, getrusage(RUSAGE_SELF).ru_maxrss, which Node gives in KiB.
const PEAK_PRELOAD = `process.on('exit', () => require('node:fs').writeFileSync(process.env.CITADEL_TEST_PEAK_FILE, String(process.resourceUsage().maxRSS * 1024)));\n`;

/** The built CLI as a child process, killed at `timeoutMs`, its peak memory measured. */
export function runCliBounded(args: readonly string[], options: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs: number; scratch: string }): Promise<BoundedRun> {
  const preload = path.join(options.scratch, 'peak-rss.cjs');
  const peakFile = path.join(options.scratch, `peak-${process.hrtime.bigint()}.txt`);
  writeFileSync(preload, PEAK_PRELOAD);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', preload, CLI_PATH, ...args], {
      cwd: options.cwd,
      env: { ...options.env, CITADEL_TEST_PEAK_FILE: peakFile },
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let peakRssBytes: number | null = null;
      try {
        peakRssBytes = Number(readFileSync(peakFile, 'utf8'));
      } catch {
        peakRssBytes = null;
      }
      resolve({ code, stdout, stderr, timedOut, peakRssBytes, ms: Date.now() - started });
    });
  });
}

/** The one JSON document a `--json` run printed. */
export function jsonOf(run: BoundedRun): Record<string, unknown> {
  try {
    return JSON.parse(run.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`no JSON (exit ${run.code}, timed out ${run.timedOut}):\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  }
}
