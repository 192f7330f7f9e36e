import { isCitadelError } from '../../shared/errors';
import type { ComparedBranch } from '../../shared/fork/compare';
import { ForkRequestSchema } from '../../shared/fork/fork-request';
import { LandingRecordSchema, SelectionRecordSchema, type LandingRecord, type SelectionRecord } from '../../shared/fork/landing';
import type { ForkStore } from '../store/fork-store';
import { Journal } from '../store/journal';
import { DECISION_RECORD, readStoredJson, UNTRUSTED } from '../store/read-stored-json';
import type { VerifiedFork } from '../evidence/verify-fork';
import { mergeCommitHolds } from './find-merge-commit';
import { landingJournalState } from './landing-journal';
import { targetMismatch } from './target-identity';

/**
 * Whether a fork's stored decision records (selection.json, landing.json) stand (issue 12, item 2).
 * Both are unsigned files any process of the operator can write, so what replay and proof show as
 * selected or landed is judged afresh from verified facts, never read as proof.
 */

/** The fork's current selection file, as stored: a decision record, not yet a fact. */
export async function readSelection(store: ForkStore, forkId: string): Promise<SelectionRecord | null> {
  return readStoredJson(store.file(forkId, 'selection'), SelectionRecordSchema, DECISION_RECORD);
}

/**
 * A decision record judged: the record when it stands; else, when one was stored (or, for a
 * landing, journaled) but does not stand, the typed reason replay and proof give for showing none.
 */
export type Standing<T, P extends string> = { readonly holds: T; readonly problem: null } | { readonly holds: null; readonly problem: P | null };

const none = { holds: null, problem: null } as const;

/** The selection, when it is this fork's and names a branch that is selectable now (freshly verified and comparable). */
export async function standingSelection(store: ForkStore, forkId: string, compared: readonly ComparedBranch[]): Promise<Standing<SelectionRecord, 'selection_unverified'>> {
  const selection = await readSelection(store, forkId);
  if (selection === null) return none;
  const stands = selection.fork_id === forkId && compared.some((b) => b.branch_id === selection.branch_id && b.comparable);
  return stands ? { holds: selection, problem: null } : { holds: null, problem: 'selection_unverified' };
}

/**
 * The landing, when it holds by the rule `fork resume` applies (reconcile-landing.ts): landing.json
 * and the journal agree on a completed landing of a verified branch, the recorded target is the
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
  if (state?.kind !== 'landed' || state.outcome.merge_commit !== landing.merge_commit || state.intent.branch_id !== landing.branch_id) return null;
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
  try {
    return landingJournalState(await Journal.read(store.file(forkId, 'journal')));
  } catch (error) {
    if (isCitadelError(error)) return null;
    throw error;
  }
}
