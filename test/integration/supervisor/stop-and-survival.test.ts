import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { launchSupervised } from '../../../main/runtimes/process-control/launch-supervised';
import { isSameProcessAlive } from '../../../main/runtimes/os-process/process-liveness';
import { isRuntimeAlive } from '../../../main/runtimes/process-control/run-liveness';
import { stopRun } from '../../../main/runtimes/process-control/stop-run';
import { waitForExit } from '../../../main/runtimes/process-control/wait-for-exit';
import { RunStatusSchema, type RunningStatus, type RunStatus } from '../../../main/runtimes/supervisor/run-status';
import { useTempDirs } from '../../support/temp-dir';
import { afterGo, hasEnded, nodeRuntime, readText, STUBBORN_RUNTIME, useBundles, useRunCleanup, waitUntil } from './harness';

const tempDir = useTempDirs();
const bundles = useBundles();
const track = useRunCleanup();
const POLL = { pollMs: 25 };

/** Output that can only arrive after the test says go. */
const WAITS_FOR_GO = afterGo(`console.log('late output');`);

function expectRunning(status: RunStatus): RunningStatus {
  if (status.phase !== 'running') throw new Error(`expected a running record, got ${JSON.stringify(status)}`);
  return status;
}

describe('STOP', () => {
  it('goes through a live supervisor, which ends the group and records stopped', async () => {
    const dir = tempDir();
    const pidFile = path.join(dir, 'grandchild.pid');
    const spec = nodeRuntime(dir, STUBBORN_RUNTIME, { scriptArgs: [pidFile], overrides: { kill_grace_ms: 500 } });
    const running = expectRunning(track(await launchSupervised(spec, bundles().supervisor)));
    await waitUntil('the grandchild runs', () => readText(spec.stdout_file).includes('grandchild up'));

    expect(await stopRun(spec.status_file, running, 2_000)).toEqual({ process_gone: true, via: 'supervisor' });
    expect(await waitForExit(spec.status_file, POLL)).toMatchObject({ stopped: true, timed_out: false, signal: 'SIGKILL' });
    expect(readText(spec.stdout_file)).toContain('runtime got SIGTERM');
    expect(isRuntimeAlive(running)).toBe(false);
    expect(hasEnded(Number(readText(pidFile)))).toBe(true);
  });

  it('ends the group directly when the supervisor is gone, and records nothing itself', async () => {
    const dir = tempDir();
    const pidFile = path.join(dir, 'grandchild.pid');
    const spec = nodeRuntime(dir, STUBBORN_RUNTIME, { scriptArgs: [pidFile] });
    const running = expectRunning(track(await launchSupervised(spec, bundles().supervisor)));
    await waitUntil('the grandchild runs', () => readText(spec.stdout_file).includes('grandchild up'));
    process.kill(running.supervisor_pid, 'SIGKILL');
    await waitUntil('the supervisor is gone', () => hasEnded(running.supervisor_pid));
    const logged = readText(spec.stdout_file);

    expect(await stopRun(spec.status_file, running, 300)).toEqual({ process_gone: true, via: 'direct' });
    expect(hasEnded(running.runtime_pid)).toBe(true);
    expect(hasEnded(Number(readText(pidFile)))).toBe(true);
    // The runtime printed on SIGTERM, but its output pipe had no reader left: nothing reached the log.
    expect(readText(spec.stdout_file)).toBe(logged);
    expect(await waitForExit(spec.status_file, POLL)).toEqual({ phase: 'lost' });
  });

  it('reports already_gone for a run that has ended, given its exited or a stale running record', async () => {
    const dir = tempDir();
    const go = path.join(dir, 'go');
    const spec = nodeRuntime(dir, WAITS_FOR_GO, { scriptArgs: [go] });
    const running = expectRunning(track(await launchSupervised(spec, bundles().supervisor)));
    writeFileSync(go, '');
    const exited = await waitForExit(spec.status_file, POLL);
    if (exited.phase !== 'exited') throw new Error('expected an exited record');
    expect(await stopRun(spec.status_file, exited, 300)).toEqual({ process_gone: true, via: 'already_gone' });
    await waitUntil('the supervisor is gone', () => hasEnded(running.supervisor_pid));
    expect(await stopRun(spec.status_file, running, 300)).toEqual({ process_gone: true, via: 'already_gone' });
  });
});

describe('a run outlives', () => {
  it('the process that launched it, killed with its whole process group', async () => {
    const dir = tempDir();
    const go = path.join(dir, 'go');
    const spec = nodeRuntime(dir, WAITS_FOR_GO, { scriptArgs: [go] });
    const launcher = spawn(process.execPath, [bundles().launcher, bundles().supervisor, JSON.stringify(spec)], {
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = (await once(createInterface({ input: launcher.stdout }), 'line')) as [string];
    const running = expectRunning(track(RunStatusSchema.parse(JSON.parse(line))));
    await waitUntil('the runtime is ready', () => readText(spec.stdout_file).includes('ready'));

    const launcherExit = once(launcher, 'exit');
    if (launcher.pid === undefined) throw new Error('the launcher did not start');
    process.kill(-launcher.pid, 'SIGKILL');
    expect(await launcherExit).toEqual([null, 'SIGKILL']);
    expect(isSameProcessAlive(running.supervisor_pid, running.supervisor_start_time)).toBe(true);

    writeFileSync(go, '');
    expect(await waitForExit(spec.status_file, POLL)).toMatchObject({ phase: 'exited', exit_code: 0, stopped: false });
    expect(readText(spec.stdout_file)).toBe('ready\nlate output\n');
  });
});

describe('a run whose supervisor is killed', () => {
  it('is lost: the runtime ends on its next write, which reaches no log', async () => {
    const dir = tempDir();
    const go = path.join(dir, 'go');
    // A shell runtime would sleep on after its late write, were the write not fatal (SIGPIPE).
    const script = 'echo ready; while [ ! -e "$1" ]; do sleep 0.05; done; echo late output; sleep 60';
    const spec = nodeRuntime(dir, '', { overrides: { command: '/bin/sh', args: ['-c', script, 'sh', go], env: { PATH: '/usr/bin:/bin' } } });
    const running = expectRunning(track(await launchSupervised(spec, bundles().supervisor)));
    await waitUntil('the runtime is ready', () => readText(spec.stdout_file).includes('ready'));
    process.kill(running.supervisor_pid, 'SIGKILL');
    await waitUntil('the supervisor is gone', () => hasEnded(running.supervisor_pid));

    let settled = false;
    const outcome = waitForExit(spec.status_file, POLL).finally(() => (settled = true));
    // Many polls' worth: a waiter that took "supervisor gone" for "run over" would have settled by now.
    await sleep(500);
    expect(settled).toBe(false);
    expect(isSameProcessAlive(running.runtime_pid, running.runtime_start_time)).toBe(true);

    // The runtime's output is a pipe the supervisor read: with no reader left, its next write fails.
    writeFileSync(go, '');
    expect(await outcome).toEqual({ phase: 'lost' });
    expect(readText(spec.stdout_file)).toBe('ready\n');
    expect(hasEnded(running.runtime_pid)).toBe(true);
  });

  it('together with its runtime is lost, not exited', async () => {
    const dir = tempDir();
    const spec = nodeRuntime(dir, WAITS_FOR_GO, { scriptArgs: [path.join(dir, 'go')] });
    const running = expectRunning(track(await launchSupervised(spec, bundles().supervisor)));
    process.kill(running.supervisor_pid, 'SIGKILL');
    process.kill(-running.runtime_pgid, 'SIGKILL');
    expect(await waitForExit(spec.status_file, POLL)).toEqual({ phase: 'lost' });
  });
});
