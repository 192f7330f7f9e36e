import { LandingRecordSchema, type LandingRecord } from '../../shared/fork/landing';
import type { OrchestratorContext } from '../host/context';
import type { ForkStore } from '../store/fork-store';
import { commitTransition } from '../store/record-transitions';
import { writePrivateJson } from '../store/atomic-file';
import { CHECKPOINT, readStoredJson } from '../store/read-stored-json';
import type { LandingIntent, LandingJournalState, LandingOutcome } from './landing-journal';

/**
 * Records a landing whose journal result is written: the fork state `landed`, then `landing.json`.
 * Both follow from the journal, so recovery repeats this safely. landing.json is written last, so
 * when it records the journal's landing (`recordsJournal`) nothing is left to record; fork.json's
 * state, which is not signed, is never what decides that.
 */
export async function recordLanded(ctx: OrchestratorContext, intent: LandingIntent, outcome: LandingOutcome): Promise<void> {
  const fork = await ctx.store.readRecord(intent.fork_id);
  if (fork.state !== 'landed') await commitTransition(ctx, fork, {}, 'landed');
  const record: LandingRecord = { status: 'landed', ...fromIntent(intent), merge_commit: outcome.merge_commit, landed_at: outcome.landed_at };
  if (!recordsLanding(await storedLanding(ctx.store, intent.fork_id), intent, outcome)) await writeLandingRecord(ctx, record);
}

/** A landing that may or may not have merged: the fork waits, blocked, for an operator (decisions D11). Same order as recordLanded. */
export async function recordBlocked(ctx: OrchestratorContext, intent: LandingIntent): Promise<void> {
  const fork = await ctx.store.readRecord(intent.fork_id);
  if (fork.state !== 'blocked') await commitTransition(ctx, fork, {}, 'blocked');
  if (!recordsLanding(await storedLanding(ctx.store, intent.fork_id), intent, null)) {
    await writeLandingRecord(ctx, { status: 'blocked', ...fromIntent(intent), reason: 'landing_in_doubt', blocked_at: ctx.now().toISOString() });
  }
}

/** landing.json as stored; null when it is missing or not a landing record (recording writes it afresh). */
export async function storedLanding(store: ForkStore, forkId: string): Promise<LandingRecord | null> {
  return readStoredJson(store.file(forkId, 'landing'), LandingRecordSchema, CHECKPOINT);
}

/** Whether landing.json records the journal's landing (none never is): see recordsLanding. */
export function recordsJournal(stored: LandingRecord | null, state: LandingJournalState): boolean {
  return state.kind !== 'none' && recordsLanding(stored, state.intent, state.kind === 'landed' ? state.outcome : null);
}

/**
 * Whether landing.json is exactly what a journaled landing implies: every field of its intent and,
 * with an outcome, `landed` with that outcome; without one (in doubt), `blocked`.
 */
function recordsLanding(stored: LandingRecord | null, intent: LandingIntent, outcome: LandingOutcome | null): boolean {
  if (stored === null) return false;
  const expected = fromIntent(intent);
  if (!(Object.keys(expected) as (keyof typeof expected)[]).every((field) => stored[field] === expected[field])) return false;
  if (outcome === null) return stored.status === 'blocked';
  return stored.status === 'landed' && stored.merge_commit === outcome.merge_commit && stored.landed_at === outcome.landed_at;
}

function fromIntent(intent: LandingIntent) {
  return {
    fork_id: intent.fork_id,
    branch_id: intent.branch_id,
    fork_revision: intent.fork_revision,
    selection_digest: intent.selection_digest,
    target_branch: intent.target_branch,
    target_head_before: intent.expected_parents[0],
    selected_branch_head: intent.expected_parents[1],
  };
}

async function writeLandingRecord(ctx: OrchestratorContext, record: LandingRecord): Promise<void> {
  await writePrivateJson(ctx.store.file(record.fork_id, 'landing'), LandingRecordSchema.parse(record));
}
