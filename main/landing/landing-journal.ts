import { z } from 'zod';
import { DigestSchema } from '../../shared/digest';
import { CitadelError } from '../../shared/errors';
import type { SelectionRecord } from '../../shared/fork/landing';
import { BranchIdSchema, CommitShaSchema, ForkIdSchema } from '../../shared/fork/ids';
import { IsoTimeSchema } from '../../shared/iso-time';
import type { Journal } from '../store/journal';

/** Journaled before the merge: everything recovery needs to recognise the merge commit, and to record it. */
export const LandingIntentSchema = z.strictObject({
  fork_id: ForkIdSchema,
  branch_id: BranchIdSchema,
  git_branch: z.string(),
  fork_revision: z.number().int().nonnegative(),
  selection_digest: DigestSchema,
  target_branch: z.string(),
  /** [target head before the merge, selected branch head]: the parents the merge commit must have, in order. */
  expected_parents: z.tuple([CommitShaSchema, CommitShaSchema]),
});
export type LandingIntent = z.infer<typeof LandingIntentSchema>;

/** Journaled after the merge. `reconciled`: recovery found the commit after a crash rather than seeing the merge return. */
export const LandingOutcomeSchema = z.strictObject({ merge_commit: CommitShaSchema, landed_at: IsoTimeSchema, reconciled: z.boolean() });
export type LandingOutcome = z.infer<typeof LandingOutcomeSchema>;

/**
 * One journal key per attempt: `Journal.status` reads the last result of a key, so an attempt after a
 * cleanly failed one (a conflict) needs its own key, or its in-doubt intent would read as `failed`.
 */
export function landingKey(selection: Pick<SelectionRecord, 'branch_id' | 'fork_revision'>, attempt: number): string {
  return `${selection.branch_id}@${selection.fork_revision}#${attempt}`;
}

export type LandingJournalState =
  /** Nothing landed or in doubt; `attempts` cleanly failed attempts were journaled. */
  | { readonly kind: 'none'; readonly attempts: number }
  | { readonly kind: 'in-doubt'; readonly key: string; readonly intent: LandingIntent }
  | { readonly kind: 'landed'; readonly key: string; readonly intent: LandingIntent; readonly outcome: LandingOutcome };

/** Where landing stands according to the fork's journal. A fork lands at most once, whatever it selected. */
export function landingJournalState(journal: Pick<Journal, 'records' | 'status' | 'resultOf'>): LandingJournalState {
  const intents = journal.records().filter((r) => r.effect === 'landing.merge' && r.phase === 'intent');
  const keys = [...new Set(intents.map((r) => r.key))];
  let inDoubt: LandingJournalState | null = null;
  for (const key of keys) {
    const status = journal.status('landing.merge', key);
    if (status !== 'done' && status !== 'in-doubt') continue;
    const intent = parseData(LandingIntentSchema, intents.find((r) => r.key === key)?.data, key);
    if (status === 'done') return { kind: 'landed', key, intent, outcome: parseData(LandingOutcomeSchema, journal.resultOf('landing.merge', key)?.data, key) };
    inDoubt ??= { kind: 'in-doubt', key, intent };
  }
  return inDoubt ?? { kind: 'none', attempts: keys.length };
}

// Journal lines are stored input: a landing record that does not parse stops everything.
function parseData<S extends z.ZodType>(schema: S, data: unknown, key: string): z.infer<S> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new CitadelError('FORK_RECORD_INVALID', `the journal's landing record ${key} is malformed`, { details: { key } });
  return parsed.data;
}
