import { CitadelError, isCitadelError } from '../../shared/errors';
import type { ComparedBranch } from '../../shared/fork/compare';
import { ForkRequestSchema } from '../../shared/fork/fork-request';
import { LandingRecordSchema, SelectionRecordSchema, selectionDigest, type LandingRecord, type SelectionRecord } from '../../shared/fork/landing';
import type { ForkStore } from '../store/fork-store';
import { Journal } from '../store/journal';
import { DECISION_RECORD, readStoredJson, UNTRUSTED } from '../store/read-stored-json';
import type { VerifiedFork } from '../evidence/verify-fork';
import { mergeCommitHolds } from './find-merge-commit';
import { landingJournalState } from './landing-journal';
import { recordsJournal } from './record-landing';
import { targetMismatch } from './target-identity';
import { selectionSignature, type DecisionAnchors } from './selection-signature';

/**
 * Whether a fork's stored decision records (selection.json, landing.json) stand (issue 12, item 2).
 * Both are files any process of the operator can write, so what replay and proof show as selected
 * or landed is judged afresh from verified facts, never read as proof; a selection is also signed
 * (selection-signature.ts).
 */

/** The fork's current selection file, as stored: a decision record, not yet a fact. */
export async function readSelection(store: ForkStore, forkId: string): Promise<SelectionRecord | null> {
  return readStoredJson(store.file(forkId, 'selection'), SelectionRecordSchema, DECISION_RECORD);
}

/**
 * Why `selection` is not the selection the journal recorded under its idempotency key; null when it
 * is. `fork select` journals the record's digest with its intent and its result, so an edit of
 * selection.json alone (or a line appended with another digest) never stands. A fork selected
 * before journaled no digest: its selection is checked as before.
 */
export function selectionMismatch(journal: Pick<Journal, 'records'>, selection: SelectionRecord): string | null {
  const key = selection.idempotency_key;
  const lines = journal.records().filter((r) => r.effect === 'selection.record' && r.key === key);
  if (lines.length === 0) return `the journal records no selection ${key}`;
  const digest = selectionDigest(selection);
  const journaled = lines.map((r) => r.data?.selection_digest).filter((d) => d !== undefined);
  return journaled.every((d) => d === digest) ? null : `selection.json is not the selection the journal recorded as ${key}`;
}

/**
 * The current selection, when the journal recorded it (else SELECTION_RECORD_MISMATCH) and its
 * signature verifies under the fork's trusted signer (else SELECTION_SIGNATURE_INVALID); a
 * selection made before selections were signed stands on the journal alone.
 */
export async function boundSelection(ctx: DecisionAnchors, forkId: string): Promise<BoundSelection | null> {
  const selection = await readSelection(ctx.store, forkId);
  if (selection === null) return null;
  const details = { fork_id: forkId, idempotency_key: selection.idempotency_key };
  const journal = await Journal.read(ctx.store.file(forkId, 'journal'));
  const problem = selectionMismatch(journal, selection);
  if (problem !== null) throw new CitadelError('SELECTION_RECORD_MISMATCH', problem, { details });
  const signature = await selectionSignature(ctx, forkId, selection, journal);
  if (signature.status === 'invalid') throw new CitadelError('SELECTION_SIGNATURE_INVALID', signature.message, { details });
  return { record: selection, unsigned: signature.status === 'unsigned' };
}

/** A selection that stands for landing; `unsigned` when it predates signed selections and stands on the journal alone. */
export interface BoundSelection {
  readonly record: SelectionRecord;
  readonly unsigned: boolean;
}

/**
 * A decision record judged: the record when it stands; else, when one was stored (or, for a
 * landing, journaled) but does not stand, the typed reason replay and proof give for showing none.
 */
export type Standing<T, P extends string> = { readonly holds: T; readonly problem: null } | { readonly holds: null; readonly problem: P | null };

const none = { holds: null, problem: null } as const;

/**
 * The selection, when it is this fork's, the journal recorded it, its signature verifies (or it
 * predates signing: `unsigned`, shown so), and it names a branch that is selectable now (freshly
 * verified and comparable).
 */
export async function standingSelection(
  ctx: DecisionAnchors,
  forkId: string,
  compared: readonly ComparedBranch[],
): Promise<Standing<SelectionRecord, 'selection_unverified'> & { readonly unsigned: boolean }> {
  const selection = await readSelection(ctx.store, forkId);
  if (selection === null) return { ...none, unsigned: false };
  const journal = await readJournal(ctx.store, forkId);
  const recorded = journal !== null && selectionMismatch(journal, selection) === null;
  const stands = recorded && selection.fork_id === forkId && compared.some((b) => b.branch_id === selection.branch_id && b.comparable);
  const signature = stands ? await selectionSignature(ctx, forkId, selection, journal) : null;
  if (signature === null || signature.status === 'invalid') return { holds: null, problem: 'selection_unverified', unsigned: false };
  return { holds: selection, problem: null, unsigned: signature.status === 'unsigned' };
}

/**
 * The landing, when it holds by the rule `fork resume` applies (reconcile-landing.ts): landing.json
 * is exactly the completed landing the journal records, of a verified branch, the recorded target is the
 * repository the contract binds, and there its merge commit is a merge of the recorded target head
 * and the verified branch head, on the target branch. Anything else (a forged or stale file, a
 * malformed journal, a moved or missing target) is not a landing.
 */
export async function standingLanding(store: ForkStore, fork: VerifiedFork, forkId: string): Promise<Standing<LandedRecord, 'landing_unverified'>> {
  const landing = await readStoredJson(store.file(forkId, 'landing'), LandingRecordSchema, DECISION_RECORD);
  const state = await journalLanding(store, forkId);
  const holds = await landingHolds(store, fork, forkId, landing, state);
  if (holds !== null) return { holds, problem: null };
  // A landing record stored or journaled as done, that does not hold: said so, typed.
  return landing !== null || state?.kind === 'landed' ? { holds: null, problem: 'landing_unverified' } : none;
}

type LandedRecord = Extract<LandingRecord, { status: 'landed' }>;

async function landingHolds(store: ForkStore, fork: VerifiedFork, forkId: string, landing: LandingRecord | null, state: ReturnType<typeof landingJournalState> | null): Promise<LandedRecord | null> {
  if (landing?.status !== 'landed' || landing.fork_id !== forkId) return null;
  if (state?.kind !== 'landed' || !recordsJournal(landing, state)) return null;
  const evidence = fork.branches.find((b) => b.branch_id === landing.branch_id);
  if (!evidence?.receipt_verified || evidence.receipt === null) return null;
  const verifiedHead = evidence.receipt.result_commit ?? fork.record.base_revision;
  if (state.intent.expected_parents[1] !== verifiedHead || landing.selected_branch_head !== verifiedHead) return null;
  const request = await readStoredJson(store.file(forkId, 'request'), ForkRequestSchema, UNTRUSTED);
  if (request.status !== 'valid') return null;
  const repo = request.value.repo;
  // The contract verifyFork read: its branch verified above, so that contract matches its digest.
  if ((await targetMismatch(repo, fork.contract?.target_repository_digest ?? null)) !== null) return null;
  try {
    return (await mergeCommitHolds(repo, state.intent, landing.merge_commit)) ? landing : null;
  } catch (error) {
    // A target that is gone (or no repository) holds no merge commit.
    if (isCitadelError(error)) return null;
    throw error;
  }
}

/** Where the journal says landing stands, read without taking the fork's lock; null when the journal is unreadable or malformed. */
async function journalLanding(store: ForkStore, forkId: string): Promise<ReturnType<typeof landingJournalState> | null> {
  const journal = await readJournal(store, forkId);
  try {
    return journal === null ? null : landingJournalState(journal);
  } catch (error) {
    if (isCitadelError(error)) return null;
    throw error;
  }
}

/** The journal, read without taking the fork's lock; null when it is unreadable or malformed. */
async function readJournal(store: ForkStore, forkId: string): Promise<Awaited<ReturnType<typeof Journal.read>> | null> {
  try {
    return await Journal.read(store.file(forkId, 'journal'));
  } catch (error) {
    if (isCitadelError(error)) return null;
    throw error;
  }
}
