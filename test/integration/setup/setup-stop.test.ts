/**
 * A STOP during setup ends setup: a step that exits 0 on the STOP's SIGTERM does not let the next
 * step start (which would otherwise run for the 2–4 s until its own abort kill, once per step left).
 * Runtime-only: there the step is the group's leader, so its trap decides its exit code (contained,
 * the clean launcher leads the group and dies of the signal, which fails the step).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness, WORKFLOW } from '../../support/fork-harness';
import { firstEvent, serviceOver, value } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const MARKER = 'setup-step-two-ran';
const BRANCHES = ['branch-claude', 'branch-codex'] as const;

/** Step 1 waits 30 s and exits 0 when terminated; step 2 leaves a marker in the worktree at once. */
function trapThenMarkWorkflow(h: ForkHarness): string {
  const file = path.join(h.base, 'trap-setup.json');
  const setup = [
    { id: 'hold', command: 'sh', args: ['-c', 'trap "exit 0" TERM; sleep 30'], timeout_seconds: 120, network: 'none' },
    { id: 'mark', command: 'sh', args: ['-c', `touch ${MARKER}`], timeout_seconds: 60, network: 'none' },
  ];
  writeFileSync(file, JSON.stringify({ ...WORKFLOW, schema_version: 2, setup }));
  return file;
}

describe('STOP during setup', () => {
  it('starts no further step once the step under way exits 0 on the STOP, and records the rest as not run', { timeout: 90_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-setup-stop-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
    const { service, logs } = await serviceOver(h);
    const holding = [...BRANCHES].map((branch) => firstEvent(service, (event) => event.type === 'setup_step' && event.branch_id === branch && event.step === 'hold' && event.status === 'running'));
    const started = value(
      await service.handle('startFork', { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: trapThenMarkWorkflow(h), budget_seconds: 120, containment: 'runtime-only' }),
    );
    const forkId = started.fork_id;
    await Promise.all(holding);

    const ended = firstEvent(service, (event) => event.type === 'fork_state' && event.state !== 'pending' && event.state !== 'running');
    value(await service.handle('stopBranch', { fork_id: forkId, branch_id: null }));
    expect(await ended).toMatchObject({ state: 'failed' });
    await service.drained();

    for (const branch of BRANCHES) {
      // The step under way ended as its script chose (exit 0); the next never started.
      expect(existsSync(path.join(h.worktree(forkId, branch), MARKER))).toBe(false);
      const facts = h.readJson<{ steps: unknown[]; failure: unknown }>(h.attemptFile(forkId, branch, 'setup.json'));
      expect(facts.steps).toMatchObject([
        { id: 'hold', status: 'passed', exit_code: 0 },
        { id: 'mark', status: 'not_run', exit_code: null, duration_ms: null, output_digest: null },
      ]);
      expect(facts.failure).toMatchObject({ step_id: 'mark', exit_code: null, spawn_error: null });
    }
    const timeline = value(await service.handle('forkTimeline', { fork_id: forkId })).map(({ event }) => event);
    expect(timeline.filter((event) => event.type === 'setup_step' && event.step === 'hold' && event.status === 'passed')).toHaveLength(2);
    // Shown as not run, never as running; the two branches' setups end in either order.
    const marks = timeline.filter((event) => event.type === 'setup_step' && event.step === 'mark');
    expect(marks.sort((a, b) => ('branch_id' in a && 'branch_id' in b ? a.branch_id.localeCompare(b.branch_id) : 0))).toEqual(
      BRANCHES.map((branch) => ({ type: 'setup_step', fork_id: forkId, branch_id: branch, step: 'mark', status: 'not_run' })),
    );

    const status = value(await service.handle('forkStatus', { fork_id: forkId }));
    const stopped = { state: 'failed', failure_code: 'STOPPED_BY_OPERATOR', blocked_reason: null };
    expect(status).toMatchObject({ state: 'failed', branches: [stopped, stopped] });
    const journal = readFileSync(path.join(h.forkDir(forkId), 'journal.jsonl'), 'utf8');
    expect(journal).not.toContain('runtime.launch');
    expect(journal).toMatch(/"effect":"setup.run".*"phase":"result","outcome":"failed"/);
    expect(logs).toEqual([]);
  });
});
