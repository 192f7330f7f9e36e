import { isCitadelError } from '../../shared/errors';
import type { ForkRecord } from '../../shared/fork/fork-record';
import type { Resumability } from '../../shared/fork/resumability';
import { landingJournalState, type LandingJournalState } from '../landing/landing-journal';
import { recordsJournal, storedLanding } from '../landing/record-landing';
import type { LandingRecord } from '../../shared/fork/landing';
import { withForkLock } from '../store/fork-lock';
import type { OrchestratorContext } from '../host/context';

/**
 * What `resumeFork` would find to continue right now. The journal is read under the fork lock,
 * taken without waiting: a fork whose lock is held is being driven (or landed) by some process,
 * so there is nothing for an operator to resume yet.
 */
export async function resumability(ctx: OrchestratorContext, forkId: string): Promise<Resumability> {
  await ctx.store.readRecord(forkId);
  try {
    return await withForkLock(
      ctx.store.forkDir(forkId),
      async () => {
        const record = await ctx.store.readRecord(forkId);
        return decide(record, landingJournalState(await ctx.store.openJournal(forkId)), await storedLanding(ctx.store, forkId));
      },
      { waitMs: 0 },
    );
  } catch (error) {
    if (isCitadelError(error) && error.code === 'FORK_LOCKED') return { resumable: false, reason: 'in_progress' };
    throw error;
  }
}

function decide(record: ForkRecord, landing: LandingJournalState, stored: LandingRecord | null): Resumability {
  if (record.branches.some((b) => b.state === 'pending' || b.state === 'running')) return { resumable: true, reason: 'branches_unfinished' };
  // Resume records a journaled merge, or settles an in-doubt one (found: landed; not: blocked). It is
  // settled when landing.json, written last, records it: fork.json's state is not signed and never decides.
  const unsettled = landing.kind !== 'none' && !recordsJournal(stored, landing);
  return unsettled ? { resumable: true, reason: 'landing_unsettled' } : { resumable: false, reason: 'nothing_to_resume' };
}
