import { CitadelError, isCitadelError } from '../../shared/errors';
import type { ForkRecord } from '../../shared/fork/fork-record';
import type { StopResult } from '../runtimes/process-control/stop-run';
import type { OrchestratorContext } from '../host/context';
import { driveFork } from './drive-fork';
import { stopBranchRun } from './stop-branch-run';

export interface StopOutcome {
  readonly stopped: ReadonlyArray<{ branch_id: string } & StopResult>;
  readonly record: ForkRecord;
}

/**
 * STOP: an independent control path that needs no fork lock, so it works while another process
 * drives the fork. It journals and ends each runtime's process group (stop-branch-run.ts); the
 * collection records the branch outcome (STOPPED_BY_OPERATOR) as a separate fact.
 */
export async function stopFork(ctx: OrchestratorContext, forkId: string, branchId?: string): Promise<StopOutcome> {
  const record = await ctx.store.readRecord(forkId);
  if (branchId !== undefined && !record.branches.some((b) => b.branch_id === branchId)) {
    throw new CitadelError('BRANCH_NOT_FOUND', `no branch ${branchId} in ${forkId}`);
  }
  const targets = record.branches.filter((b) => b.state === 'running' && (branchId === undefined || b.branch_id === branchId));
  if (branchId !== undefined && targets.length === 0) {
    throw new CitadelError('FORK_STATE_CONFLICT', `${branchId} is not running`, { details: { branch_id: branchId } });
  }
  const stopped = await Promise.all(
    targets.map(async (branch) => {
      ctx.events({ type: 'runtime', fork_id: forkId, branch_id: branch.branch_id, phase: 'stop_requested' });
      return { branch_id: branch.branch_id, ...(await stopBranchRun(ctx, forkId, branch)) };
    }),
  );
  return { stopped, record: await collectIfFree(ctx, forkId, record) };
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
