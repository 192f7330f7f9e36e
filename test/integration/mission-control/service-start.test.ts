import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness, WORKFLOW } from '../../support/fork-harness';
import { firstEvent, serviceOver, value } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

/** A version 2 workflow whose one setup step takes 30 s (a stand-in for a real `npm ci`). */
function slowSetupWorkflow(h: ForkHarness): string {
  const file = path.join(h.base, 'slow-setup.json');
  const setup = [{ id: 'install', command: 'node', args: ['-e', 'setTimeout(() => {}, 30000)'], timeout_seconds: 120, network: 'none' }];
  writeFileSync(file, JSON.stringify({ ...WORKFLOW, schema_version: 2, setup }));
  return file;
}

describe('Mission Control start returns once the fork is recorded', () => {
  it('answers before a 30 s setup step ends, shows the step running, and a STOP ends it with the branch stopped', { timeout: 90_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-mc-start-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
    const { service, logs } = await serviceOver(h);
    const setupRunning = firstEvent(service, (event) => event.type === 'setup_step' && event.branch_id === 'branch-claude' && event.status === 'running');

    const askedAt = performance.now();
    const started = value(
      await service.handle('startFork', { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: slowSetupWorkflow(h), budget_seconds: 120 }),
    );
    // Long before the step's 30 s: the answer is the fork as created, driven in the background.
    expect(performance.now() - askedAt).toBeLessThan(10_000);
    expect(started).toMatchObject({ state: 'pending', branches: [{ branch_id: 'branch-claude', state: 'pending' }, { branch_id: 'branch-codex', state: 'pending' }] });
    const forkId = started.fork_id;
    expect(service.runningForks()).toEqual([forkId]);
    expect(value(await service.handle('resumability', { fork_id: forkId }))).toEqual({ resumable: false, reason: 'in_progress', driver: { by: 'this_process' } });

    expect(await setupRunning).toEqual({ type: 'setup_step', fork_id: forkId, branch_id: 'branch-claude', step: 'install', status: 'running' });
    // A view opened now (not subscribed when the step began) reads the step under way from disk.
    const past = value(await service.handle('forkTimeline', { fork_id: forkId })).map(({ event }) => event);
    expect(past).toContainEqual({ type: 'setup_step', fork_id: forkId, branch_id: 'branch-claude', step: 'install', status: 'running' });
    expect(value(await service.handle('forkStatus', { fork_id: forkId })).branches.map((b) => b.state)).toEqual(['pending', 'pending']);

    // STOP while the step runs: the step is ended, the runtime never launched, and the branch fails as stopped.
    const stoppedAt = performance.now();
    const ended = firstEvent(service, (event) => event.type === 'fork_state' && event.state !== 'pending' && event.state !== 'running');
    const stop = value(await service.handle('stopBranch', { fork_id: forkId, branch_id: null }));
    expect(stop.fork_id).toBe(forkId);
    expect(await ended).toMatchObject({ state: 'failed' });
    await service.drained();
    expect(performance.now() - stoppedAt).toBeLessThan(20_000);
    const status = value(await service.handle('forkStatus', { fork_id: forkId }));
    const stopped = { state: 'failed', failure_code: 'STOPPED_BY_OPERATOR', blocked_reason: null };
    expect(status).toMatchObject({ state: 'failed', branches: [stopped, stopped] });
    const journal = readFileSync(path.join(h.forkDir(forkId), 'journal.jsonl'), 'utf8');
    expect(journal).not.toContain('runtime.launch');
    expect(journal).toMatch(/"effect":"setup.run".*"phase":"result","outcome":"failed"/);
    expect(value(await service.handle('forkTimeline', { fork_id: forkId })).map(({ event }) => event)).toContainEqual({
      type: 'setup_step',
      fork_id: forkId,
      branch_id: 'branch-claude',
      step: 'install',
      status: 'failed',
    });

    // Settled, it cleans like any failed fork.
    expect(value(await service.handle('cleanFork', { fork_id: forkId })).fork_id).toBe(forkId);
    expect(logs).toEqual([]);
  });
});
