import { CitadelError } from '../../shared/errors';
import type { Cleanability } from '../../shared/fork/cleanability';
import type { ForkRecord } from '../../shared/fork/fork-record';
import type { OrchestratorContext } from '../host/context';

/** The one rule of when a fork can be cleaned: no branch running, none pending. */
export function cleanabilityOf(record: Pick<ForkRecord, 'branches'>): Cleanability {
  const running = record.branches.filter((b) => b.state === 'running').map((b) => b.branch_id);
  if (running.length > 0) return { cleanable: false, reason: 'branches_running', branch_ids: running };
  const pending = record.branches.filter((b) => b.state === 'pending').map((b) => b.branch_id);
  if (pending.length > 0) return { cleanable: false, reason: 'branches_pending', branch_ids: pending };
  return { cleanable: true };
}

/** What `cleanFork` refuses with, when `cleanabilityOf` says no. */
export function assertCleanable(record: Pick<ForkRecord, 'branches'>): void {
  const standing = cleanabilityOf(record);
  if (standing.cleanable) return;
  const ids = standing.branch_ids;
  if (standing.reason === 'branches_running') throw new CitadelError('FORK_STATE_CONFLICT', `stop the running branches first: ${ids.join(', ')}`, { details: { running: ids } });
  // A pending branch's worktree is journaled as created: removing it would make `resume` launch into a missing folder.
  throw new CitadelError('FORK_STATE_CONFLICT', `resume the fork first, so its pending branches run: ${ids.join(', ')}`, { details: { pending: ids } });
}

export async function cleanability(ctx: OrchestratorContext, forkId: string): Promise<Cleanability> {
  return cleanabilityOf(await ctx.store.readRecord(forkId));
}
