import { digestOf, sha256Digest } from '../../shared/digest';
import { CitadelError } from '../../shared/errors';
import { compareBranches } from '../../shared/fork/compare';
import type { ForkRecord } from '../../shared/fork/fork-record';
import { SelectionRecordSchema, selectedRevision, selectionDigest, type SelectionRecord } from '../../shared/fork/landing';
import { branchSelectability, forkSelectionRefusal, type SelectionRefusal } from '../../shared/fork/selectability';
import { describeEvidence, type AgainstEvidence } from '../../shared/fork/selection-evidence';
import { verifyFork } from '../evidence/verify-fork';
import { writePrivateFile, writePrivateJson } from '../store/atomic-file';
import { withForkLock } from '../store/fork-lock';
import { forkFile, selectionFiles } from '../store/fork-layout';
import type { OrchestratorContext } from '../host/context';
import { DECISION_RECORD, readStoredJson } from '../store/read-stored-json';
import { commitTransition } from '../store/record-transitions';
import { boundSelection, readSelection, type BoundSelection } from '../landing/decision-standing';
import { landingJournalState } from '../landing/landing-journal';
import { SIGNED_SELECTION, signSelection } from '../landing/selection-signature';
import { Journal } from '../store/journal';
import type { SignedEnvelope } from '../../shared/evidence/signed-envelope';

export interface SelectRequest {
  readonly branchId: string;
  readonly actor: string;
  readonly reason: string;
  /** Omitted: derived from branch, actor and reason, so repeating the same command is idempotent. */
  readonly idempotencyKey?: string | undefined;
  /**
   * The operator acknowledges selecting against the evidence (`--against-evidence`): required when
   * the comparison did not recommend the branch (a tie of proven passes aside) or its verifier did
   * not pass; recorded, signed, with what the evidence said.
   */
  readonly againstEvidence?: boolean | undefined;
}

const MAX_REASON_BYTES = 16 * 1024;

/**
 * Records the operator's selection: an immutable decision record (fork revision, branch, actor,
 * reason digest, idempotency key, time). It runs no git. The reason text stays private; public
 * artifacts never carry it. Once no branch can still change (selectability.ts), a comparable
 * branch, freshly re-verified, can be selected from a ready, blocked or failed fork; one the
 * evidence does not support only with the operator's acknowledgement (SELECTION_AGAINST_EVIDENCE).
 */
export async function selectBranch(ctx: OrchestratorContext, forkId: string, request: SelectRequest): Promise<SelectionRecord> {
  const reason = request.reason.trim();
  if (reason === '' || Buffer.byteLength(reason) > MAX_REASON_BYTES) {
    throw new CitadelError('USAGE_ERROR', `a selection needs a reason of at most ${MAX_REASON_BYTES} bytes`);
  }
  const reasonDigest = sha256Digest(reason);
  const derivedKey = `sel-${digestOf({ branch_id: request.branchId, actor: request.actor, reason_digest: reasonDigest }).slice(7, 23)}`;
  const requestedKey = request.idempotencyKey ?? derivedKey;
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(requestedKey)) throw new CitadelError('USAGE_ERROR', 'an idempotency key is 1 to 128 letters, digits, dots, dashes or underscores');
  await ctx.store.readRecord(forkId);
  return withForkLock(ctx.store.forkDir(forkId), async () => {
    const forkDir = ctx.store.forkDir(forkId);
    const record = await ctx.store.readRecord(forkId);
    await refuseAfterLanding(ctx, forkId);
    let key = requestedKey;
    const existing = await readStoredJson(selectionFiles(forkDir, key).record, SelectionRecordSchema, DECISION_RECORD);
    if (existing) {
      if (existing.branch_id !== request.branchId || existing.actor !== request.actor || existing.reason_digest !== reasonDigest) {
        throw new CitadelError('SELECTION_KEY_CONFLICT', `idempotency key ${key} was already used for a different selection`, { details: { idempotency_key: key } });
      }
      // Repeating an acknowledged selection still needs the acknowledgement.
      if (existing.against_evidence !== undefined && request.againstEvidence !== true) refuseAgainstEvidence(request.branchId, existing.against_evidence);
      // Recorded, but a crash came before it became current: finish it.
      if (record.revision === existing.fork_revision) {
        await complete(ctx, record, existing, forkDir, await signSelection(ctx, forkId, existing));
        return existing;
      }
      const current = await readSelection(ctx.store, forkId);
      if (current?.idempotency_key === key && record.state === 'selected' && record.revision === selectedRevision(existing)) return existing;
      if (request.idempotencyKey !== undefined) {
        throw new CitadelError('SELECTION_KEY_CONFLICT', `idempotency key ${key} belongs to an earlier selection that is no longer current`, {
          details: { idempotency_key: key },
        });
      }
      // The same words again after another decision: a new decision, under a key of its own.
      key = `${derivedKey}-r${record.revision}`;
    }
    // Refused before verifying anything while a branch can still change.
    const unsettled = forkSelectionRefusal(record);
    if (unsettled !== null) throw refusalError(unsettled);
    const verdict = branchSelectability(record, compareBranches((await verifyFork(ctx, forkId)).branches), request.branchId);
    if (!verdict.selectable) throw refusalError(verdict.refusal);
    const againstEvidence: AgainstEvidence | null = verdict.against === null ? null : { acknowledged: true, evidence: verdict.against };
    // Refused before anything is written: no record, no journal line, no signature.
    if (againstEvidence !== null && request.againstEvidence !== true) refuseAgainstEvidence(request.branchId, againstEvidence);
    const selection: SelectionRecord = {
      fork_id: forkId,
      fork_revision: record.revision,
      branch_id: request.branchId,
      actor: request.actor,
      reason_digest: reasonDigest,
      idempotency_key: key,
      selected_at: ctx.now().toISOString(),
      // Only when acknowledged: a selection that agrees with the evidence keeps the shape and digest it had before this field existed.
      ...(againstEvidence === null ? {} : { against_evidence: againstEvidence }),
    };
    // The record's digest, journaled: selection.json stands only as the selection recorded here, and signed.
    const bound = { selection_digest: selectionDigest(selection), ...SIGNED_SELECTION };
    // Signed before anything is written: a key this machine does not hold refuses the selection cleanly.
    const sealed = await signSelection(ctx, forkId, selection);
    const journal = await ctx.store.openJournal(forkId);
    await journal.intent('selection.record', key, bound);
    const files = selectionFiles(forkDir, key);
    await ctx.root.ensureDir(files.dir);
    await writePrivateFile(files.reason, reason);
    await writePrivateJson(files.record, selection);
    await complete(ctx, record, selection, forkDir, sealed);
    await journal.result('selection.record', key, 'done', { fork_revision: selectedRevision(selection), ...bound });
    return selection;
  });
}

function refusalError({ code, message, details }: SelectionRefusal): CitadelError {
  return new CitadelError(code, message, { details: { ...details } });
}

function refuseAgainstEvidence(branchId: string, { evidence }: AgainstEvidence): never {
  throw new CitadelError(
    'SELECTION_AGAINST_EVIDENCE',
    `${describeEvidence(branchId, evidence)}. Selecting ${branchId} anyway needs an explicit acknowledgement (citadel fork select … --against-evidence); nothing was recorded`,
    { details: { branch_id: branchId, ...evidence } },
  );
}

/**
 * fork.json's state is an unsigned record: the journal decides whether a landing began. A fork
 * whose journal holds a completed or in-doubt landing is never selected again, whatever fork.json says.
 */
async function refuseAfterLanding(ctx: OrchestratorContext, forkId: string): Promise<void> {
  const landing = landingJournalState(await Journal.read(ctx.store.file(forkId, 'journal')));
  if (landing.kind !== 'none') {
    throw new CitadelError('FORK_STATE_CONFLICT', `${forkId} has a ${landing.kind === 'landed' ? 'completed' : 'begun'} landing in its journal; it cannot be selected from`, {
      details: { landing: landing.kind },
    });
  }
}

/**
 * Makes the selection current: its signature, the pointer file, then the one transition to
 * `selected`. Signing is deterministic (ed25519), so finishing after a crash writes the same bytes.
 */
async function complete(ctx: OrchestratorContext, record: ForkRecord, selection: SelectionRecord, forkDir: string, sealed: SignedEnvelope<SelectionRecord>): Promise<ForkRecord> {
  await writePrivateJson(forkFile(forkDir, 'selectionSignature'), sealed);
  await writePrivateJson(forkFile(forkDir, 'selection'), selection);
  return commitTransition(ctx, record, {}, 'selected');
}

/**
 * The current selection of a fork, if any, when it is the one the journal recorded (else
 * SELECTION_RECORD_MISMATCH) and signed by the fork's trusted signer (else
 * SELECTION_SIGNATURE_INVALID). Landing re-checks it; replay and proof show only a standing one.
 */
export async function currentSelection(ctx: OrchestratorContext, forkId: string): Promise<BoundSelection | null> {
  return boundSelection(ctx, forkId);
}

