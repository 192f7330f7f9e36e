import type { BranchRecord } from '../../shared/fork/fork-record';
import { readStatus } from '../runtimes/process-control/read-status';
import { stopRun, type StopResult } from '../runtimes/process-control/stop-run';
import { withDirLock } from '../store/fork-lock';
import { attemptFiles, attemptKey } from '../store/fork-layout';
import { Journal, type EffectStatus } from '../store/journal';
import type { OrchestratorContext } from '../host/context';

const GRACE_MS = 5000;
// One STOP takes at most about 20 s (two grace periods, the supervisor's slack, the kill settle).
const STOP_LOCK_WAIT_MS = 40_000;

type Attempt = Pick<BranchRecord, 'branch_id' | 'attempt'>;

/**
 * STOP of one branch attempt as a journaled effect (runtime.stop, repeatable): the intent is
 * durable before any signal, the result (whether the process is gone) after. It goes to the
 * attempt's own stop journal, under the attempt's stop lock, because a process driving the fork
 * holds the fork lock for the whole run and STOP must not wait for it. The branch outcome is a
 * separate fact, recorded by the collection.
 */
export async function stopBranchRun(ctx: OrchestratorContext, forkId: string, branch: Attempt): Promise<StopResult> {
  const files = attemptFiles(ctx.root, forkId, branch.branch_id, branch.attempt);
  return journaledStop(ctx, files, stopKey(branch), async () => stopRun(files.status, await readStatus(files.status), GRACE_MS));
}

/** One STOP as the attempt's journaled effect, under its stop lock: the intent before `act`, its result after. */
function journaledStop(ctx: OrchestratorContext, files: ReturnType<typeof attemptFiles>, key: string, act: () => Promise<StopResult>): Promise<StopResult> {
  return withDirLock(
    files.stopLock,
    'another STOP of this branch is under way',
    async () => {
      const journal = await Journal.open(files.stopJournal, ctx.now);
      await journal.intent('runtime.stop', key, { requested_at: ctx.now().toISOString() });
      const result = await act();
      await journal.result('runtime.stop', key, result.process_gone ? 'done' : 'failed', result);
      return result;
    },
    { waitMs: STOP_LOCK_WAIT_MS },
  );
}

/**
 * STOP of an attempt whose runtime has not been launched (its worktree, setup or launch still to
 * come): journaled like any STOP, as a request. The process driving the fork acts on it (ends a
 * setup step under way, launches nothing) and records the branch as stopped; with no process
 * driving it, the next drive does.
 */
export async function requestStopBeforeLaunch(ctx: OrchestratorContext, forkId: string, branch: Attempt): Promise<StopResult> {
  const files = attemptFiles(ctx.root, forkId, branch.branch_id, branch.attempt);
  await ctx.root.ensureDir(files.dir);
  return journaledStop(ctx, files, stopKey(branch), () => Promise.resolve({ process_gone: true, via: 'not_launched' }));
}

/** Whether an operator has asked to stop this attempt at all (a STOP's intent is on record). */
export async function stopRequested(ctx: OrchestratorContext, forkId: string, branch: Attempt): Promise<boolean> {
  return (await stopStatus(ctx, forkId, branch)) !== 'not-started';
}

/** Whether an operator asked to stop this attempt: `in-doubt` is a STOP cut short (or still under way). */
export async function stopStatus(ctx: OrchestratorContext, forkId: string, branch: Attempt): Promise<EffectStatus> {
  const journal = await Journal.read(attemptFiles(ctx.root, forkId, branch.branch_id, branch.attempt).stopJournal);
  return journal.status('runtime.stop', stopKey(branch));
}

/**
 * Whether a STOP of this attempt is known to have ended a live run (journaled result via the
 * supervisor or directly). A STOP that found the run already gone, or one whose result is in
 * doubt, proves nothing about how the run ended: that stays unknown.
 */
export async function stopEndedRun(ctx: OrchestratorContext, forkId: string, branch: Attempt): Promise<boolean> {
  const journal = await Journal.read(attemptFiles(ctx.root, forkId, branch.branch_id, branch.attempt).stopJournal);
  const key = stopKey(branch);
  return journal.records().some((r) => r.effect === 'runtime.stop' && r.key === key && r.phase === 'result' && (r.data?.via === 'supervisor' || r.data?.via === 'direct'));
}

const stopKey = (branch: Attempt): string => attemptKey(branch.branch_id, branch.attempt);
