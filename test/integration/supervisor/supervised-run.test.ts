import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchSpecFileFor, launchSupervised } from '../../../main/runtimes/process-control/launch-supervised';
import { readStatus } from '../../../main/runtimes/process-control/read-status';
import { waitForExit } from '../../../main/runtimes/process-control/wait-for-exit';
import { useTempDirs } from '../../support/temp-dir';
import { afterGo, hasEnded, nodeRuntime, readText, STUBBORN_RUNTIME, useBundles, useRunCleanup, waitUntil } from './harness';

const tempDir = useTempDirs();
const bundles = useBundles();
const track = useRunCleanup();
const POLL = { pollMs: 25 };

describe('a supervised run', () => {
  it('runs the runtime detached, appends its output to the files and records both phases', async () => {
    const dir = tempDir();
    const go = path.join(dir, 'go');
    const spec = nodeRuntime(dir, afterGo(`console.log('to stdout'); console.error('to stderr'); process.exitCode = 7;`), {
      scriptArgs: [go],
    });
    writeFileSync(spec.stdout_file, 'earlier\n');

    const running = track(await launchSupervised(spec, bundles().supervisor));
    if (running.phase !== 'running') throw new Error(`expected running, got ${JSON.stringify(running)}`);
    expect(running.supervisor_pid).not.toBe(process.pid);
    expect(running.runtime_pgid).toBe(running.runtime_pid);
    expect(running.supervisor_start_time).toEqual(expect.any(Number));
    expect(running.runtime_start_time).toEqual(expect.any(Number));
    writeFileSync(go, '');

    const exited = await waitForExit(spec.status_file, POLL);
    expect(exited).toMatchObject({
      phase: 'exited',
      supervisor_pid: running.supervisor_pid,
      runtime_pid: running.runtime_pid,
      runtime_start_time: running.runtime_start_time,
      started_at: running.started_at,
      exit_code: 7,
      signal: null,
      timed_out: false,
      stopped: false,
      spawn_error: null,
    });
    expect(await readStatus(spec.status_file)).toEqual(exited);
    expect(readText(spec.stdout_file)).toBe('earlier\nready\nto stdout\n');
    expect(readText(spec.stderr_file)).toBe('to stderr\n');
    // The spec carried the runtime's environment; the supervisor removes it once read.
    expect(existsSync(launchSpecFileFor(spec.status_file))).toBe(false);
  });

  it('feeds the stdin file to the runtime', async () => {
    const dir = tempDir();
    const spec = nodeRuntime(dir, `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => console.log('got:' + s));`, {
      stdin: 'the prompt\nline two',
    });
    track(await launchSupervised(spec, bundles().supervisor));
    expect(await waitForExit(spec.status_file, POLL)).toMatchObject({ exit_code: 0 });
    expect(readText(spec.stdout_file)).toBe('got:the prompt\nline two\n');
  });

  it('gives the runtime exactly the spec environment, nothing inherited from the launcher or the supervisor', async () => {
    const env = { ONLY_THIS: 'yes', LANG: 'C.UTF-8' };
    const leak = { CITADEL_SUPERVISOR_TEST_LEAK: 'must not arrive' };
    const viaLaunch = nodeRuntime(tempDir(), `console.log(JSON.stringify(process.env));`, { overrides: { env } });
    Object.assign(process.env, leak);
    try {
      track(await launchSupervised(viaLaunch, bundles().supervisor));
    } finally {
      delete process.env.CITADEL_SUPERVISOR_TEST_LEAK;
    }
    expect(await waitForExit(viaLaunch.status_file, POLL)).toMatchObject({ exit_code: 0 });
    expect(JSON.parse(readText(viaLaunch.stdout_file))).toEqual(env);

    // The supervisor started by hand in a polluted environment passes none of it on either.
    const direct = nodeRuntime(tempDir(), `console.log(JSON.stringify(process.env));`, { overrides: { env } });
    const specFile = launchSpecFileFor(direct.status_file);
    writeFileSync(specFile, JSON.stringify(direct));
    const supervisor = spawn(process.execPath, [bundles().supervisor, specFile], { env: { ...process.env, ...leak }, stdio: 'ignore' });
    expect(await once(supervisor, 'exit')).toEqual([0, null]);
    expect(await readStatus(direct.status_file)).toMatchObject({ phase: 'exited', exit_code: 0 });
    expect(JSON.parse(readText(direct.stdout_file))).toEqual(env);
  });

  it('records a command that does not exist as an exited run with spawn_error ENOENT', async () => {
    const dir = tempDir();
    const spec = nodeRuntime(dir, '', { overrides: { command: path.join(dir, 'no-such-runtime'), args: [] } });
    const status = await launchSupervised(spec, bundles().supervisor);
    expect(status).toMatchObject({
      phase: 'exited',
      spawn_error: 'ENOENT',
      runtime_pid: null,
      runtime_pgid: null,
      exit_code: null,
      timed_out: false,
      stopped: false,
    });
    expect(await waitForExit(spec.status_file, POLL)).toEqual(status);
  });

  it('on timeout ends the whole group: SIGTERM, then SIGKILL after the grace, grandchildren included', async () => {
    const dir = tempDir();
    const pidFile = path.join(dir, 'grandchild.pid');
    const spec = nodeRuntime(dir, STUBBORN_RUNTIME, { scriptArgs: [pidFile], overrides: { timeout_ms: 6_000, kill_grace_ms: 500 } });
    track(await launchSupervised(spec, bundles().supervisor));
    await waitUntil('the grandchild runs', () => readText(spec.stdout_file).includes('grandchild up'));
    const grandchild = Number(readText(pidFile));
    expect(hasEnded(grandchild)).toBe(false);

    const exited = await waitForExit(spec.status_file, POLL);
    expect(exited).toMatchObject({ phase: 'exited', timed_out: true, stopped: false, exit_code: null, signal: 'SIGKILL' });
    expect(readText(spec.stdout_file)).toContain('runtime got SIGTERM');
    expect(hasEnded(grandchild)).toBe(true);
  });

  it('ends what the runtime left behind in its group before recording the exit', async () => {
    const dir = tempDir();
    const pidFile = path.join(dir, 'grandchild.pid');
    const spec = nodeRuntime(
      dir,
      `import { spawn } from 'node:child_process';
       import { writeFileSync } from 'node:fs';
       const c = spawn(process.execPath, ['-e', "console.log('lingering'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'inherit', 'inherit'] });
       writeFileSync(process.argv[2], String(c.pid));
       c.unref();`,
      { scriptArgs: [pidFile] },
    );
    track(await launchSupervised(spec, bundles().supervisor));
    const exited = await waitForExit(spec.status_file, POLL);
    expect(exited).toMatchObject({ phase: 'exited', exit_code: 0, timed_out: false, stopped: false });
    expect(hasEnded(Number(readText(pidFile)))).toBe(true);
  });

  it('refuses an invalid spec and a status file that already exists, launching nothing', async () => {
    const dir = tempDir();
    const spec = nodeRuntime(dir, 'process.exit(0)');
    await expect(launchSupervised({ ...spec, cwd: 'relative/dir', timeout_ms: 0 }, bundles().supervisor)).rejects.toMatchObject({
      code: 'LAUNCH_SPEC_INVALID',
      violations: [
        { path: '$.cwd', rule: 'not_absolute' },
        { path: '$.timeout_ms', rule: 'too_small' },
      ],
    });
    writeFileSync(spec.status_file, '{}');
    await expect(launchSupervised(spec, bundles().supervisor)).rejects.toMatchObject({ code: 'RUN_STATUS_EXISTS' });
    expect(existsSync(spec.stdout_file)).toBe(false);
  });

  it('reports a supervisor that ends without writing a record', async () => {
    const dir = tempDir();
    const broken = path.join(dir, 'broken-supervisor.mjs');
    writeFileSync(broken, 'process.exit(3);');
    await expect(launchSupervised(nodeRuntime(dir, ''), broken)).rejects.toMatchObject({
      code: 'SUPERVISOR_START_FAILED',
      details: { reason: 'exit code 3' },
    });
  });
});
