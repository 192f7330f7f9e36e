/**
 * `citadel fork stop` as a journaled effect (spec/adapters-and-safety.md, "Effects, uncertainty and
 * STOP"): the real CLI, real detached supervisors and simulated runtimes that hang until killed.
 * STOP records its intent before it signals and its result after, in the attempt's stop journal;
 * the branch outcome is a separate fact: failed with STOPPED_BY_OPERATOR when the STOP is known to
 * have ended a live run (the supervisor answered, was gone or hung), otherwise blocked with its
 * outcome unknown; never relaunched either way.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readStatus } from '../../../main/runtimes/process-control/read-status';
import { isProcessGroupAlive, isSameProcessAlive } from '../../../main/runtimes/os-process/process-liveness';
import type { RunningStatus } from '../../../main/runtimes/supervisor/run-status';
import { JournalRecordSchema } from '../../../main/store/journal';
import { branch, FIXED_SUM, ForkHarness, parseDoc, type ForkStatusDoc } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const STOPPED = { state: 'failed', failure_code: 'STOPPED_BY_OPERATOR', blocked_reason: null, attempt: 1 };
const PROCESS_LOST = { state: 'blocked', failure_code: 'RUNTIME_OUTCOME_UNKNOWN', blocked_reason: 'process_lost', attempt: 1 };

/**
 * A detached fork whose claude runtime hangs until killed (codex fixes the sum and exits on its own,
 * so a resume has nothing else to wait for); returns it with claude's running record.
 */
async function hangingFork(extraArgs: readonly string[] = []): Promise<{ h: ForkHarness; doc: ForkStatusDoc; claude: RunningStatus }> {
  const h = new ForkHarness(tempDir('citadel-stop-'));
  await h.simulate({ claude: { outcome: 'hang' }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
  const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--detach', ...extraArgs]);
  expect(run.code, run.stderr).toBe(0);
  const status = await readStatus(h.attemptFile(doc.fork_id, 'branch-claude', 'run.json'));
  if (status.phase !== 'running') throw new Error(`claude is not running: ${JSON.stringify(status)}`);
  return { h, doc, claude: status };
}

const stopJournal = (h: ForkHarness, forkId: string) =>
  existsSync(h.attemptFile(forkId, 'branch-claude', 'stop-journal.jsonl'))
    ? h.readJsonLines(h.attemptFile(forkId, 'branch-claude', 'stop-journal.jsonl')).map((line) => JournalRecordSchema.parse(line))
    : [];

const gone = (run: RunningStatus) => !isSameProcessAlive(run.supervisor_pid, run.supervisor_start_time) && !isProcessGroupAlive(run.runtime_pgid);

/** The runtime was launched once: one launch intent in the fork journal, attempt 1 throughout. */
function expectLaunchedOnce(h: ForkHarness, forkId: string): void {
  const launches = h.readJsonLines(`${h.forkDir(forkId)}/journal.jsonl`).filter((r) => r.effect === 'runtime.launch' && r.key === 'branch-claude#1' && r.phase === 'intent');
  expect(launches).toHaveLength(1);
}

async function stopClaude(h: ForkHarness, forkId: string, extra: Record<string, string> = {}) {
  return h.cli(['fork', 'stop', forkId, 'branch-claude', '--json'], extra);
}

/** Ends what a failed test left of claude's run (only its recorded processes). */
function cleanUp(run: RunningStatus): void {
  if (isSameProcessAlive(run.supervisor_pid, run.supervisor_start_time)) process.kill(run.supervisor_pid, 'SIGKILL');
  if (isProcessGroupAlive(run.runtime_pgid)) process.kill(-run.runtime_pgid, 'SIGKILL');
}

describe('fork stop journals its intent and result', () => {
  it('through a live supervisor: intent, then process gone, then STOPPED_BY_OPERATOR', async () => {
    const { h, doc, claude } = await hangingFork();
    const stop = await stopClaude(h, doc.fork_id);
    expect(stop.code, stop.stderr).toBe(0);
    const out = JSON.parse(stop.stdout) as { stopped: unknown[]; status: ForkStatusDoc };
    expect(out.stopped).toEqual([{ branch_id: 'branch-claude', process_gone: true, via: 'supervisor' }]);
    expect(branch(out.status, 'branch-claude')).toMatchObject(STOPPED);
    expect(stopJournal(h, doc.fork_id)).toEqual([
      expect.objectContaining({ seq: 0, effect: 'runtime.stop', key: 'branch-claude#1', phase: 'intent' }),
      expect.objectContaining({ seq: 1, effect: 'runtime.stop', key: 'branch-claude#1', phase: 'result', outcome: 'done', data: { process_gone: true, via: 'supervisor' } }),
    ]);
    expect(gone(claude)).toBe(true);
    expect(await readStatus(h.attemptFile(doc.fork_id, 'branch-claude', 'run.json'))).toMatchObject({ phase: 'exited', stopped: true });
  });

  // Contained (issue 11), the sandbox dies with its supervisor (bwrap --die-with-parent): nothing of
  // the run outlives it, so a later STOP finds it already gone and, as for any run that ended on its
  // own, proves nothing about how it ended.
  it('contained, with the supervisor killed: the sandboxed runtime ends with it; STOP finds it gone and records the outcome as unknown', async () => {
    const { h, doc, claude } = await hangingFork();
    process.kill(claude.supervisor_pid, 'SIGKILL');
    const until = Date.now() + 5000;
    while (isProcessGroupAlive(claude.runtime_pgid) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gone(claude), 'the runtime outlived its supervisor').toBe(true);
    const stop = await stopClaude(h, doc.fork_id);
    expect(stop.code, stop.stderr).toBe(0);
    const out = JSON.parse(stop.stdout) as { stopped: unknown[]; status: ForkStatusDoc };
    expect(out.stopped).toEqual([{ branch_id: 'branch-claude', process_gone: true, via: 'already_gone' }]);
    expect(branch(out.status, 'branch-claude')).toMatchObject(PROCESS_LOST);
  });

  // Runtime-only, the runtime outlives a killed supervisor, and STOP ends its group directly.
  it('runtime-only, with the supervisor killed: the runtime group is ended directly, and the outcome is still STOPPED_BY_OPERATOR', async () => {
    const { h, doc, claude } = await hangingFork(['--containment', 'runtime-only']);
    process.kill(claude.supervisor_pid, 'SIGKILL');
    const stop = await stopClaude(h, doc.fork_id);
    expect(stop.code, stop.stderr).toBe(0);
    const out = JSON.parse(stop.stdout) as { stopped: unknown[]; status: ForkStatusDoc };
    expect(out.stopped).toEqual([{ branch_id: 'branch-claude', process_gone: true, via: 'direct' }]);
    expect(branch(out.status, 'branch-claude')).toMatchObject(STOPPED);
    expect(gone(claude)).toBe(true);
    // No exited record exists; the receipt still says STOP ended the run.
    expect((await readStatus(h.attemptFile(doc.fork_id, 'branch-claude', 'run.json'))).phase).toBe('running');
    const receipt = h.readJson<{ receipt: { status: string; failure_code: string; exit: { stopped: boolean } } }>(h.attemptFile(doc.fork_id, 'branch-claude', 'execution-receipt.json'));
    expect(receipt.receipt).toMatchObject({ status: 'failed', failure_code: 'STOPPED_BY_OPERATOR', exit: { stopped: true } });
    // A later resume keeps that outcome: nothing is relaunched or turned into process_lost.
    const resumed = parseDoc(await h.cli(['fork', 'resume', doc.fork_id, '--json']));
    expect(branch(resumed, 'branch-claude')).toMatchObject(STOPPED);
    expectLaunchedOnce(h, doc.fork_id);
  });

  it('with the supervisor hung: STOP goes around it, ends the runtime group and the supervisor', { timeout: 90_000 }, async () => {
    const { h, doc, claude } = await hangingFork();
    process.kill(claude.supervisor_pid, 'SIGSTOP');
    try {
      const stop = await stopClaude(h, doc.fork_id);
      expect(stop.code, stop.stderr).toBe(0);
      const out = JSON.parse(stop.stdout) as { stopped: unknown[]; status: ForkStatusDoc };
      expect(out.stopped).toEqual([{ branch_id: 'branch-claude', process_gone: true, via: 'direct' }]);
      expect(branch(out.status, 'branch-claude')).toMatchObject(STOPPED);
      expect(gone(claude)).toBe(true);
      expectLaunchedOnce(h, doc.fork_id);
    } finally {
      cleanUp(claude);
    }
  });
});

describe('a STOP that finds the run already gone', () => {
  it('proves nothing about how it ended: the branch is blocked, outcome unknown, never STOPPED_BY_OPERATOR', async () => {
    const { h, doc, claude } = await hangingFork();
    try {
      // Supervisor and runtime die on their own (an OOM kill, a reboot) before anyone stops them.
      process.kill(claude.supervisor_pid, 'SIGKILL');
      process.kill(-claude.runtime_pgid, 'SIGKILL');
      const stop = await stopClaude(h, doc.fork_id);
      expect(stop.code, stop.stderr).toBe(0);
      expect(stopJournal(h, doc.fork_id).at(-1)).toMatchObject({ phase: 'result', data: { via: 'already_gone' } });
      const resumed = await h.cli(['fork', 'resume', doc.fork_id, '--json']);
      expect(branch(parseDoc(resumed), 'branch-claude')).toMatchObject(PROCESS_LOST);
      expectLaunchedOnce(h, doc.fork_id);
    } finally {
      cleanUp(claude);
    }
  });
});

describe('fork resume after a STOP cut short', () => {
  // The stopping process is SIGKILLed at the journal's boundary; its stop lock turns stale after
  // 12 s (STALE_MS in fork-lock.ts), so resume takes that long to finish the STOP.
  it.each([
    // Intent durable, nothing signalled yet: resume carries out the STOP itself, which ends a live run.
    { boundary: 'runtime.stop:after-intent', signalled: false, outcome: STOPPED },
    // Signalled and gone, result not journaled: the supervisor recorded the stop in the run's exit
    // record, so the outcome is proven even though resume's STOP finds the run already gone.
    { boundary: 'runtime.stop:before-result', signalled: true, outcome: STOPPED },
  ])('at $boundary: resume finishes the STOP and records what it can prove', { timeout: 120_000 }, async ({ boundary, signalled, outcome }) => {
    const { h, doc, claude } = await hangingFork();
    try {
      const crashed = await stopClaude(h, doc.fork_id, { CITADEL_CRASH_AT: boundary });
      expect(crashed.code, crashed.stderr).toBe(null);
      expect(crashed.stdout).toBe('');
      expect(stopJournal(h, doc.fork_id).map((r) => r.phase)).toEqual(['intent']);
      expect(gone(claude)).toBe(signalled);

      const resumed = await h.cli(['fork', 'resume', doc.fork_id, '--json']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(branch(parseDoc(resumed), 'branch-claude')).toMatchObject(outcome);
      expect(gone(claude)).toBe(true);
      expect(stopJournal(h, doc.fork_id).map((r) => `${r.phase}:${r.outcome ?? ''}`).slice(-1)).toEqual(['result:done']);
      expectLaunchedOnce(h, doc.fork_id);
    } finally {
      cleanUp(claude);
    }
  });
});
