import { CitadelError, isCitadelError } from '../../shared/errors';
import type { BranchRecord, ForkRecord } from '../../shared/fork/fork-record';
import type { StopResult } from '../runtimes/process-control/stop-run';
import type { OrchestratorContext } from '../host/context';
import { driveFork } from './drive-fork';
import { requestStopBeforeLaunch, stopBranchRun } from './stop-branch-run';

export interface StopOutcome {
  readonly stopped: ReadonlyArray<{ branch_id: string } & StopResult>;
  readonly record: ForkRecord;
}

/**
 * STOP: an independent control path that needs no fork lock, so it works while another process
 * drives the fork. It journals and ends each runtime's process group (stop-branch-run.ts); the
 * collection records the branch outcome (STOPPED_BY_OPERATOR) as a separate fact. A branch not yet
 * launched is stopped by a journaled request its drive acts on, with the same outcome.
 */
export async function stopFork(ctx: OrchestratorContext, forkId: string, branchId?: string): Promise<StopOutcome> {
  const record = await ctx.store.readRecord(forkId);
  if (branchId !== undefined && !record.branches.some((b) => b.branch_id === branchId)) {
    throw new CitadelError('BRANCH_NOT_FOUND', `no branch ${branchId} in ${forkId}`);
  }
  const targets = record.branches.filter((b) => (b.state === 'running' || b.state === 'pending') && (branchId === undefined || b.branch_id === branchId));
  if (branchId !== undefined && targets.length === 0) {
    throw new CitadelError('FORK_STATE_CONFLICT', `${branchId} is not running`, { details: { branch_id: branchId } });
  }
  const stopped = await Promise.all(
    targets.map(async (branch) => {
      ctx.events({ type: 'runtime', fork_id: forkId, branch_id: branch.branch_id, phase: 'stop_requested' });
      return { branch_id: branch.branch_id, ...(branch.state === 'running' ? await stopBranchRun(ctx, forkId, branch) : await stopBeforeLaunch(ctx, forkId, branch)) };
    }),
  );
  return { stopped, record: await collectIfFree(ctx, forkId, record) };
}

/**
 * A pending branch (being prepared or set up, or waiting to launch) is stopped by request. The
 * drive looks for the request after each launch it records, and this reads the record after
 * writing it: whichever comes second sees the other, so a launch racing this STOP is still ended.
 */
async function stopBeforeLaunch(ctx: OrchestratorContext, forkId: string, branch: BranchRecord): Promise<StopResult> {
  const requested = await requestStopBeforeLaunch(ctx, forkId, branch);
  const now = (await ctx.store.readRecord(forkId)).branches.find((b) => b.branch_id === branch.branch_id);
  return now?.state === 'running' && now.attempt === branch.attempt ? stopBranchRun(ctx, forkId, branch) : requested;
}

/** Records the outcome now unless another process drives the fork: that one records it instead. */
async function collectIfFree(ctx: OrchestratorContext, forkId: string, fallback: ForkRecord): Promise<ForkRecord> {
  try {
    return await driveFork(ctx, forkId, 'exited-only', { lockWaitMs: 1000 });
  } catch (error) {
    if (isCitadelError(error) && error.code === 'FORK_LOCKED') return fallback;
    throw error;
  }
}
