/**
 * A supervisor started in standby (ForkDriver starts one per launch while the repositories are
 * checked out): it reads and starts nothing until its launcher hands over, so the launch's journal
 * intent still comes before anything runs, and one released (or whose launcher died: the same
 * closed stdin) ends without a trace.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchSpecFileFor, launchSupervised, startStandbySupervisor } from '../../../main/runtimes/process-control/launch-supervised';
import { waitForExit } from '../../../main/runtimes/process-control/wait-for-exit';
import { useTempDirs } from '../../support/temp-dir';
import { hasEnded, nodeRuntime, readText, useBundles, useRunCleanup, waitUntil } from './harness';

const tempDir = useTempDirs();
const bundles = useBundles();
const track = useRunCleanup();

/** A runtime that leaves a marker file as the first thing it does. */
const MARKING_RUNTIME = `import { writeFileSync } from 'node:fs'; writeFileSync(process.argv[2], 'ran'); console.log('ran');`;

describe('a standby supervisor', () => {
  it('runs the launch it is handed: the run is the standby process, not one started at the hand-over', async () => {
    const dir = tempDir();
    const marker = path.join(dir, 'marker');
    const spec = nodeRuntime(dir, MARKING_RUNTIME, { scriptArgs: [marker] });
    const standby = startStandbySupervisor(spec.status_file, dir, bundles().supervisor);
    expect(standby.pid).toEqual(expect.any(Number));

    const first = track(await launchSupervised(spec, bundles().supervisor, process.execPath, standby));
    expect(first.supervisor_pid).toBe(standby.pid);
    expect(await waitForExit(spec.status_file, { pollMs: 25 })).toMatchObject({ phase: 'exited', exit_code: 0 });
    expect(readText(marker)).toBe('ran');
    expect(existsSync(launchSpecFileFor(spec.status_file))).toBe(false);
  });

  it('reads and starts nothing when released before a hand-over, even with its launch spec in place', async () => {
    const dir = tempDir();
    const marker = path.join(dir, 'marker');
    const spec = nodeRuntime(dir, MARKING_RUNTIME, { scriptArgs: [marker] });
    const standby = startStandbySupervisor(spec.status_file, dir, bundles().supervisor);
    const pid = standby.pid;
    if (pid === undefined) throw new Error('the standby was not spawned');
    // What a launcher that died between writing the spec and handing over would leave.
    writeFileSync(launchSpecFileFor(spec.status_file), JSON.stringify(spec), { mode: 0o600 });
    standby.release();

    // The process can be gone from /proc before Node has delivered its exit event: wait for both.
    await waitUntil('the released standby has ended', () => hasEnded(pid) && standby.ended() !== undefined);
    expect(standby.ended()).toBe('exit code 0');
    expect(existsSync(spec.status_file)).toBe(false);
    expect(existsSync(marker)).toBe(false);
    // Never read: a supervisor that read its spec removes it at once.
    expect(existsSync(launchSpecFileFor(spec.status_file))).toBe(true);
  });

  it('refuses to hand one run to the standby of another', async () => {
    const dir = tempDir();
    const spec = nodeRuntime(dir, MARKING_RUNTIME, { scriptArgs: [path.join(dir, 'marker')] });
    const standby = startStandbySupervisor(path.join(dir, 'other.json'), dir, bundles().supervisor);
    try {
      await expect(launchSupervised(spec, bundles().supervisor, process.execPath, standby)).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    } finally {
      standby.release();
    }
    expect(existsSync(spec.status_file)).toBe(false);
  });
});
