import { CitadelError } from '../../shared/errors';
import { ContractV1Schema, ContractV2Schema } from '../../shared/fork/contract';
import type { BranchRecord, ForkRecord } from '../../shared/fork/fork-record';
import type { RetryPlan } from '../../shared/fork/retry-plan';
import { deleteBranch } from '../git/refs';
import { removeBranchRepository } from '../git/branch-repository';
import { readStatus } from '../runtimes/process-control/read-status';
import { isRuntimeAlive, isSupervisorAlive } from '../runtimes/process-control/run-liveness';
import { stopRun } from '../runtimes/process-control/stop-run';
import { withForkLock } from '../store/fork-lock';
import { attemptFiles, attemptKey, branchRepository } from '../store/fork-layout';
import type { OrchestratorContext } from '../host/context';
import { ForkRequestSchema } from '../../shared/fork/fork-request';
import { commitTransition } from '../store/record-transitions';

export type Resolution = 'mark-failed' | 'retry';

/**
 * The explicit operator decision for a blocked branch (decisions D11). `mark-failed` settles it
 * as failed with its outcome unknown; `retry` discards the attempt's worktree (its evidence stays)
 * and makes a fresh attempt from the base revision, which `resume` then launches. A branch whose
 * start was refused never ran: its retry starts the same attempt again (no attempt is used, and
 * its journaled, repeatable preparation is redone or kept as the journal says).
 */
export async function resolveBranch(ctx: OrchestratorContext, forkId: string, branchId: string, resolution: Resolution): Promise<ForkRecord> {
  await ctx.store.readRecord(forkId);
  return withForkLock(ctx.store.forkDir(forkId), async () => {
    const record = await ctx.store.readRecord(forkId);
    const branch = record.branches.find((b) => b.branch_id === branchId);
    if (!branch) throw new CitadelError('BRANCH_NOT_FOUND', `no branch ${branchId} in ${forkId}`);
    const journal = await ctx.store.openJournal(forkId);
    const key = attemptKey(branchId, branch.attempt);
    // A pending branch whose launch was never begun (its start refused with the branch left pending,
    // e.g. a sandbox gone since creation) can be marked failed: nothing of it runs or can be in doubt.
    const neverLaunched = branch.state === 'pending' && journal.status('runtime.launch', key) === 'not-started';
    if (branch.state !== 'blocked' && !(resolution === 'mark-failed' && neverLaunched)) {
      throw new CitadelError('FORK_STATE_CONFLICT', `${branchId} is not blocked (its state is ${branch.state}); only a blocked branch (or a pending one never launched, to mark it failed) needs a decision`, {
        details: { state: branch.state },
      });
    }
    const plan = resolution === 'retry' ? await retryPlan(ctx, record, branch) : null;
    if (plan?.kind === 'exhausted') {
      const limit = plan.max_attempts;
      throw new CitadelError('ATTEMPTS_EXHAUSTED', `the contract allows ${limit} attempt${limit === 1 ? '' : 's'} per branch and this was attempt ${plan.attempt}; mark it failed, or start a new fork with --max-attempts`, {
        details: { attempt: plan.attempt, max_attempts: limit },
      });
    }
    await journal.intent('branch.resolve', key, { resolution });
    let next: ForkRecord;
    if (resolution === 'mark-failed') {
      next = await commitTransition(ctx, record, { [branchId]: { state: 'failed', failure_code: 'RUNTIME_OUTCOME_UNKNOWN', blocked_reason: null } });
    } else if (plan?.kind === 'same_attempt') {
      next = await commitTransition(ctx, record, { [branchId]: { state: 'pending', failure_code: null, blocked_reason: null } });
    } else {
      const files = attemptFiles(ctx.root, forkId, branchId, branch.attempt);
      const status = await readStatus(files.status).catch(() => null);
      if (status?.phase === 'running' && (isSupervisorAlive(status) || isRuntimeAlive(status))) await stopRun(files.status, status, 5000);
      const { repo } = await ctx.store.readJson(forkId, 'request', ForkRequestSchema);
      const { worktree, gitDir } = branchRepository(ctx.root, forkId, branchId);
      await removeBranchRepository({ gitDir, workTree: worktree });
      await deleteBranch(repo, branch.git_branch);
      next = await commitTransition(ctx, record, {
        [branchId]: { state: 'pending', failure_code: null, blocked_reason: null, attempt: branch.attempt + 1 },
      });
    }
    await journal.result('branch.resolve', key, 'done', { resolution });
    return next;
  });
}

/**
 * What Retry does to a blocked branch now: one whose start was refused never ran, so its retry
 * starts the same attempt again and uses none; any other uses the next attempt, which the contract's
 * limit, frozen with the fork, may not allow (a retry past it is refused, not stretched).
 */
export async function retryPlan(ctx: OrchestratorContext, record: ForkRecord, branch: BranchRecord): Promise<RetryPlan> {
  const contract = await ctx.store.readJson(record.fork_id, 'contract', record.schema_version === 1 ? ContractV1Schema : ContractV2Schema);
  const limit = contract.budget.max_attempts;
  if (branch.blocked_reason === 'start_refused') return { kind: 'same_attempt', attempt: branch.attempt, max_attempts: limit };
  if (branch.attempt >= limit) return { kind: 'exhausted', attempt: branch.attempt, max_attempts: limit };
  return { kind: 'next_attempt', attempt: branch.attempt + 1, max_attempts: limit };
}
