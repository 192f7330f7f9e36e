import { isCitadelError } from '../../shared/errors';
import type { ForkRecord } from '../../shared/fork/fork-record';
import type { ForkDriver, Resumability } from '../../shared/fork/resumability';
import { landingJournalState, type LandingJournalState } from '../landing/landing-journal';
import { recordsJournal, storedLanding } from '../landing/record-landing';
import type { LandingRecord } from '../../shared/fork/landing';
import { forkLockHolder, withForkLock, type LockHolder } from '../store/fork-lock';
import type { OrchestratorContext } from '../host/context';

/**
 * What `resumeFork` would find to continue right now. The journal is read under the fork lock,
 * taken without waiting: a fork whose lock is held is being driven (or landed) by some process,
 * so there is nothing for an operator to resume yet, and who holds it, since when, is said. A
 * lock released between the refusal and that look is tried once more.
 */
export async function resumability(ctx: OrchestratorContext, forkId: string): Promise<Resumability> {
  await ctx.store.readRecord(forkId);
  const dir = ctx.store.forkDir(forkId);
  for (let tries = 1; ; tries += 1) {
    try {
      return await withForkLock(
        dir,
        async () => {
          const record = await ctx.store.readRecord(forkId);
          return decide(record, landingJournalState(await ctx.store.openJournal(forkId)), await storedLanding(ctx.store, forkId));
        },
        { waitMs: 0 },
      );
    } catch (error) {
      if (!isCitadelError(error) || error.code !== 'FORK_LOCKED') throw error;
      const holder = await forkLockHolder(dir);
      if (holder !== null || tries === 2) return { resumable: false, reason: 'in_progress', driver: driverOf(holder) };
    }
  }
}

/** Who drives the fork, as its lock's holder says; this process's own operations are not "another process". */
function driverOf(holder: LockHolder | null): ForkDriver {
  if (holder?.pid === process.pid) return { by: 'this_process' };
  return { by: 'another_process', pid: holder?.pid ?? null, since: holder?.since ?? null };
}

function decide(record: ForkRecord, landing: LandingJournalState, stored: LandingRecord | null): Resumability {
  if (record.branches.some((b) => b.state === 'pending' || b.state === 'running')) return { resumable: true, reason: 'branches_unfinished' };
  // Resume records a journaled merge, or settles an in-doubt one (found: landed; not: blocked). It is
  // settled when landing.json, written last, records it: fork.json's state is not signed and never decides.
  const unsettled = landing.kind !== 'none' && !recordsJournal(stored, landing);
  return unsettled ? { resumable: true, reason: 'landing_unsettled' } : { resumable: false, reason: 'nothing_to_resume' };
}
