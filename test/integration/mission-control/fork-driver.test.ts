import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { serviceOver, value } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
// The service under test keeps its keys in the file store (service-context.ts); so does the other process.
const SAME_KEYS = { CITADEL_KEYSTORE: 'file' };

/** A process's command line, as /proc has it (NUL-separated arguments, joined by spaces). */
const commandLine = (pid: number): string => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');

describe('who drives a fork (issue 29)', () => {
  it('a fork a terminal drives: Mission Control names the other process holding its lock, and since when, until it ends', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-mc-driver-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }], delay_ms: 6_000 }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }], delay_ms: 6_000 } });
    const { service, logs } = await serviceOver(h);
    const before = Date.now();
    // `fork start` without --detach: the CLI holds the fork lock while it drives the branches to their end.
    const started = h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], SAME_KEYS);

    let forkId = '';
    await expect
      .poll(async () => (forkId = value(await service.handle('listForks', { state: null })).forks[0]?.fork_id ?? ''), { timeout: 30_000, interval: 100 })
      .not.toBe('');
    await expect
      .poll(async () => value(await service.handle('resumability', { fork_id: forkId })), { timeout: 30_000, interval: 100 })
      .toMatchObject({ resumable: false, reason: 'in_progress', driver: { by: 'another_process' } });
    const standing = value(await service.handle('resumability', { fork_id: forkId }));
    if (standing.reason !== 'in_progress' || standing.driver.by !== 'another_process') throw new Error(`not held by another process: ${JSON.stringify(standing)}`);
    const { pid, since } = standing.driver;
    // The holder is the terminal's citadel process, not this one, and it holds the lock since the drive began.
    expect(pid).not.toBeNull();
    expect(pid).not.toBe(process.pid);
    expect(commandLine(pid ?? 0)).toMatch(/citadel\.mjs fork start /);
    expect(since).not.toBeNull();
    expect(Date.parse(since ?? '')).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(since ?? '')).toBeLessThanOrEqual(Date.now());
    // Asked again while the drive goes on: the same holder, the same moment (the lock is held throughout, not retaken).
    expect(value(await service.handle('resumability', { fork_id: forkId }))).toEqual(standing);

    const { run, doc } = await started;
    expect(run.code, run.stderr).toBe(0);
    expect(doc.fork_id).toBe(forkId);
    // Released: nobody drives the settled fork, and the holder's note went with its lock.
    expect(value(await service.handle('resumability', { fork_id: forkId }))).toEqual({ resumable: false, reason: 'nothing_to_resume' });
    expect(existsSync(path.join(h.forkDir(forkId), 'fork.lock'))).toBe(false);
    expect(existsSync(path.join(h.forkDir(forkId), 'fork.lock.holder.json'))).toBe(false);
    expect(logs).toEqual([]);
  });
});
