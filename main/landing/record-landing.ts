import { LandingRecordSchema, type LandingRecord } from '../../shared/fork/landing';
import type { OrchestratorContext } from '../host/context';
import { commitTransition } from '../store/record-transitions';
import { writePrivateJson } from '../store/atomic-file';
import type { LandingIntent, LandingOutcome } from './landing-journal';

/**
 * Records a landing whose journal result is written: `landing.json`, then the fork state `landed`.
 * Both follow from the journal, so recovery repeats this safely; a landed fork is left as it is.
 */
export async function recordLanded(ctx: OrchestratorContext, intent: LandingIntent, outcome: LandingOutcome): Promise<void> {
  const fork = await ctx.store.readRecord(intent.fork_id);
  if (fork.state === 'landed') return;
  await writeLandingRecord(ctx, { status: 'landed', ...fromIntent(intent), merge_commit: outcome.merge_commit, landed_at: outcome.landed_at });
  await commitTransition(ctx, fork, {}, 'landed');
}

/** A landing that may or may not have merged: the fork waits, blocked, for an operator (decisions D11). */
export async function recordBlocked(ctx: OrchestratorContext, intent: LandingIntent): Promise<void> {
  const fork = await ctx.store.readRecord(intent.fork_id);
  if (fork.state === 'blocked') return;
  await writeLandingRecord(ctx, { status: 'blocked', ...fromIntent(intent), reason: 'landing_in_doubt', blocked_at: ctx.now().toISOString() });
  await commitTransition(ctx, fork, {}, 'blocked');
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
