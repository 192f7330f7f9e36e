import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { isRuntimeAlive, isSupervisorAlive } from '../../../main/runtimes/process-control/run-liveness';
import type { LaunchSpec } from '../../../main/runtimes/supervisor/launch-spec';
import type { RunStatus } from '../../../main/runtimes/supervisor/run-status';
import { containedCommand } from '../../../main/sandbox/contained-command';
import { writeLaunchFiles } from '../../../main/sandbox/generated-etc';
import type { SandboxCommand, SandboxLauncher } from '../../../main/sandbox/sandbox-backend';
import { REPO_ROOT } from '../../support/run-cli';

export interface Bundles {
  readonly supervisor: string;
  readonly launcher: string;
}

/**
 * Bundles the supervisor (as the build will, dependencies external) and the launcher fixture into a
 * temp dir whose node_modules links to the repo's, so bare imports resolve as they do from out/cli.
 */
export function useBundles(): () => Bundles {
  let dir: string | undefined;
  let bundles: Bundles | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'citadel-supervisor-bundle-'));
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const outDir = dir;
    const bundle = async (entry: string, name: string): Promise<string> => {
      const outfile = path.join(outDir, name);
      await build({
        absWorkingDir: REPO_ROOT,
        entryPoints: [entry],
        outfile,
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'esm',
        packages: 'external',
        logLevel: 'warning',
      });
      return outfile;
    };
    bundles = {
      supervisor: await bundle('main/runtimes/supervisor/supervisor-main.ts', 'supervisor.mjs'),
      launcher: await bundle('test/integration/supervisor/fixtures/launch-and-linger.ts', 'launcher.mjs'),
    };
  });
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (bundles === undefined) throw new Error('bundles are built in beforeAll');
    return bundles;
  };
}

/** SIGKILLs whatever a failed test left running (only processes it recorded, checked by start time). */
export function useRunCleanup(): (status: RunStatus) => RunStatus {
  const runs: RunStatus[] = [];
  afterEach(() => {
    for (const status of runs.splice(0)) {
      if (isSupervisorAlive(status)) process.kill(status.supervisor_pid, 'SIGKILL');
      if (status.runtime_pgid !== null && isRuntimeAlive(status)) process.kill(-status.runtime_pgid, 'SIGKILL');
    }
  });
  return (status) => {
    runs.push(status);
    return status;
  };
}

/** A launch spec for a Node script runtime in `dir`; the script gets `scriptArgs` after its path. */
export function nodeRuntime(
  dir: string,
  source: string,
  options: { scriptArgs?: string[]; stdin?: string; overrides?: Partial<LaunchSpec> } = {},
): LaunchSpec {
  const script = path.join(dir, 'runtime.mjs');
  writeFileSync(script, source);
  const stdinFile = path.join(dir, 'stdin.txt');
  writeFileSync(stdinFile, options.stdin ?? '');
  return {
    command: process.execPath,
    args: [script, ...(options.scriptArgs ?? [])],
    cwd: dir,
    env: {},
    stdin_file: stdinFile,
    stdout_file: path.join(dir, 'stdout.log'),
    stderr_file: path.join(dir, 'stderr.log'),
    status_file: path.join(dir, 'status.json'),
    timeout_ms: 60_000,
    kill_grace_ms: 1_000,
    ...options.overrides,
  };
}

/**
 * A launch spec for `command` contained by `launcher` as the engine builds one (no egress): the
 * backend spawned with exactly the policy's environment and its fd files, in `dir`/work (the one
 * read-write root), with `readOnly` beside it; its launch files written.
 */
export async function containedRuntime(launcher: SandboxLauncher, dir: string, command: SandboxCommand, readOnly: readonly string[], stdin = ''): Promise<{ spec: LaunchSpec; work: string }> {
  const work = path.join(dir, 'work');
  mkdirSync(work);
  const contained = containedCommand(
    launcher,
    { backend: 'bubblewrap', read_only: [...readOnly], read_write: [work], tmpfs: [], env: { PATH: '/usr/bin:/bin', HOME: work }, egress: { kind: 'none' }, cwd: work },
    command,
    { launchDir: path.join(dir, 'launch'), innerBridgeScript: path.join(dir, 'unused-bridge.mjs'), nodeExecPath: process.execPath },
  );
  await writeLaunchFiles(contained.files);
  const base = nodeRuntime(dir, '', { stdin });
  return { spec: { ...base, command: contained.command, args: contained.args, env: contained.env, extra_fd_files: contained.fdFiles, cwd: work }, work };
}

/** Polls until `check` holds; the bound is generous because a loaded 2-core machine starts Node slowly. */
export async function waitUntil(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const giveUpAt = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() >= giveUpAt) throw new Error(`timed out waiting until ${what}`);
    await sleep(25);
  }
}

export function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The process's state letter from /proc, read without the code under test; null once it is gone.
 * 'Z' (zombie) means it has ended and waits to be reaped.
 */
export function procState(pid: number): string | null {
  const text = readText(`/proc/${pid}/stat`);
  return text === '' ? null : (text.slice(text.lastIndexOf(')') + 2).split(' ')[0] ?? null);
}

export function hasEnded(pid: number): boolean {
  const state = procState(pid);
  return state === null || state === 'Z';
}

/** A runtime that ignores SIGTERM (saying so on stdout) and leaves a grandchild in its group that ignores it too. */
export const STUBBORN_RUNTIME = `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
process.on('SIGTERM', () => console.log('runtime got SIGTERM'));
const grandchild = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); console.log('grandchild up'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'inherit', 'inherit'] });
writeFileSync(process.argv[2], String(grandchild.pid));
console.log('ready');
setInterval(() => {}, 1000);
`;

/**
 * Runtime source that prints 'ready' and then, once the file named by its first argument exists,
 * runs \`then\`: the run is reliably still running until the test says go.
 */
export function afterGo(then: string): string {
  return `
import { existsSync } from 'node:fs';
console.log('ready');
const timer = setInterval(() => {
  if (!existsSync(process.argv[2])) return;
  clearInterval(timer);
  ${then}
}, 20);
`;
}
