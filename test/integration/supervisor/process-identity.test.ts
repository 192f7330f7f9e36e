import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { processStartTime } from '../../../main/runtimes/os-process/proc-stat';
import { isProcessGroupAlive, isSameProcessAlive } from '../../../main/runtimes/os-process/process-liveness';
import { readStatus } from '../../../main/runtimes/process-control/read-status';
import { waitForExit } from '../../../main/runtimes/process-control/wait-for-exit';
import { useTempDirs } from '../../support/temp-dir';
import { procState, readText, waitUntil } from './harness';

const tempDir = useTempDirs();
const linux = process.platform === 'linux';

describe.runIf(linux)('process identity (pid plus start time)', () => {
  it('knows a live process by its start time and refuses a recycled pid (same pid, other start time)', () => {
    const startTime = processStartTime(process.pid);
    expect(startTime).toEqual(expect.any(Number));
    if (startTime === null) return;
    expect(isSameProcessAlive(process.pid, startTime)).toBe(true);
    expect(isSameProcessAlive(process.pid, startTime + 1)).toBe(false);
    expect(isSameProcessAlive(process.pid, null)).toBe(false);
  });

  it('treats an ended process as gone, a zombie that nobody reaped included', async () => {
    const dir = tempDir();
    const pidFile = path.join(dir, 'child.pid');
    // The parent blocks its event loop, so it never reaps the child that exits at once.
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn(process.execPath, ['-e', '']);
         require('node:fs').writeFileSync(process.argv[1], String(c.pid));
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);`,
        pidFile,
      ],
      { stdio: 'ignore' },
    );
    try {
      await waitUntil('the child is a zombie', () => readText(pidFile) !== '' && procState(Number(readText(pidFile))) === 'Z');
      const zombie = Number(readText(pidFile));
      const startTime = processStartTime(zombie);
      expect(startTime).toEqual(expect.any(Number));
      expect(isSameProcessAlive(zombie, startTime)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
      await once(parent, 'exit');
    }
    expect(processStartTime(parent.pid ?? 0)).toBeNull();
  });

  it('sees a process group while a member runs, and not after', async () => {
    const leader = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
    const pgid = leader.pid ?? 0;
    expect(isProcessGroupAlive(pgid)).toBe(true);
    process.kill(-pgid, 'SIGKILL');
    await once(leader, 'exit');
    expect(isProcessGroupAlive(pgid)).toBe(false);
    expect(isProcessGroupAlive(1)).toBe(false);
  });
});

describe('the status file', () => {
  const running = {
    phase: 'running',
    supervisor_pid: 4242,
    supervisor_start_time: 1,
    started_at: '2026-01-01T00:00:00.000Z',
    runtime_pid: 4243,
    runtime_pgid: 4243,
    runtime_start_time: 2,
  };

  it('reads a valid record and refuses missing, torn and unknown ones with typed errors', async () => {
    const file = path.join(tempDir(), 'status.json');
    await expect(readStatus(file)).rejects.toMatchObject({ code: 'RUN_STATUS_MISSING' });
    writeFileSync(file, JSON.stringify(running));
    expect(await readStatus(file)).toEqual(running);
    writeFileSync(file, JSON.stringify(running).slice(0, 40));
    await expect(readStatus(file)).rejects.toMatchObject({ code: 'RUN_STATUS_INVALID' });
    writeFileSync(file, JSON.stringify({ ...running, phase: 'paused' }));
    await expect(readStatus(file)).rejects.toMatchObject({ code: 'RUN_STATUS_INVALID' });
    writeFileSync(file, JSON.stringify({ ...running, extra: true }));
    await expect(readStatus(file)).rejects.toMatchObject({ code: 'RUN_STATUS_INVALID', violations: [{ rule: 'unknown_field' }] });
  });

  it('lets a wait on a live run be aborted with the caller’s reason', async () => {
    const file = path.join(tempDir(), 'status.json');
    const startTime = processStartTime(process.pid);
    // This very process stands in for a live supervisor.
    writeFileSync(file, JSON.stringify({ ...running, supervisor_pid: process.pid, supervisor_start_time: startTime }));
    const controller = new AbortController();
    const waiting = waitForExit(file, { pollMs: 20, signal: controller.signal });
    controller.abort(new Error('operator left'));
    await expect(waiting).rejects.toThrow('operator left');
  });
});
