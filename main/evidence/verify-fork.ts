import type { KeyObject } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { digestOf, type Digest } from '../../shared/digest';
import type { EnvelopeRejectionReason } from '../../shared/evidence/signed-envelope';
import { branchIdFor } from '../../shared/executors/executor-set-description';
import { canonicalProfileOrder, executorSetDigest, profileDigest } from '../../shared/executors/executor-digests';
import { synthesizeLegacyProfiles } from '../../shared/executors/legacy-runtimes';
import type { RuntimeProfile } from '../../shared/executors/runtime-profile';
import type { BranchEvidence, VerificationReason } from '../../shared/fork/compare';
import { bindsGateway, ContractV1Schema, ContractV2Schema, type Contract } from '../../shared/fork/contract';
import type { BranchRecord, ForkRecord } from '../../shared/fork/fork-record';
import { modelProof } from '../../shared/fork/model-proof';
import { branchResultOf, ExecutionReceiptSchema, ForkReceiptSchema, ObservationSchema, type ExecutionReceipt, type Observation } from '../../shared/fork/receipts';
import { ForkRequestSchema, SignerRecordSchema, type ForkRequest } from '../../shared/fork/fork-request';
import { requiredVerifierSteps, type RequiredStepId } from '../../shared/fork/required-evidence';
import { containmentDigest, type ContainmentTemplate } from '../../shared/sandbox/containment-policy';
import { setupPolicyDigest } from '../setup/setup-template';
import { attemptFiles, type AttemptFiles } from '../store/fork-layout';
import type { ForkRoot } from '../store/fork-root';
import type { ForkStore } from '../store/fork-store';
import { readStoredJson, UNTRUSTED, type StoredJson } from '../store/read-stored-json';
import { publicKeyDigest, publicKeyFromHex, rawPublicKey } from './signing/public-key';
import { verifyEnvelope } from './signing/verify-envelope';
import { signerTrust, type SignerTrust, type TrustAnchors } from './trust/signer-trust';

/** A fork as re-verified from disk: every caller (compare, select, land, proof, Mission Control) uses this. */
export interface VerifiedFork {
  readonly record: ForkRecord;
  readonly contract: Contract | null;
  /** Fork-level problems that make every branch non-comparable. */
  readonly forkReasons: readonly VerificationReason[];
  /** Whether the signing key is one this machine trusts; null when the fork has no readable signing key. */
  readonly trust: SignerTrust | null;
  /** One per branch of the signed branch set, in its canonical order (fork.json's only when that set is not bound). */
  readonly branches: readonly BranchEvidence[];
  /** The request as read for this verification (its profiles held to the signed set unless `executor_set_mismatch`); null when unreadable. */
  readonly request: ForkRequest | null;
}

/** Where a fork's stored files are, and the trust anchors they are checked against (an OrchestratorContext is one). */
export interface StoredForks extends TrustAnchors {
  readonly root: ForkRoot;
  readonly store: ForkStore;
}

/** One branch of the set being verified: its signed profile (when bound) and its fork.json entry (when exactly one). */
interface BranchSlot {
  readonly branchId: string;
  readonly profile: RuntimeProfile | null;
  readonly branch: BranchRecord | null;
}

/**
 * Re-verifies a fork from its stored files, which are untrusted input: the record against the
 * directory it was read from, the contract against its digest, the signer against the contract and
 * against the local key store (the trust anchor), the branch set against the signed executor set,
 * each execution receipt and (schema 2) fork receipt wrapper cryptographically and binding by
 * binding, and the observation digest recomputed from the signed facts. A stored
 * `receipt_verified` or `trusted` flag is never read as evidence: extra fields make the strict
 * schemas reject the object.
 */
export async function verifyFork(ctx: StoredForks, forkId: string): Promise<VerifiedFork> {
  const record = await ctx.store.readRecord(forkId);
  const forkReasons: VerificationReason[] = [];
  // A fork directory copied over another carries that fork's record and evidence, all consistent.
  if (record.fork_id !== forkId) forkReasons.push('fork_id_mismatch');
  const contractSchema = record.schema_version === 1 ? ContractV1Schema : ContractV2Schema;
  // Read side by side: each is judged on its own below.
  const [contract, signer, request] = await Promise.all([
    readStoredJson(ctx.store.file(forkId, 'contract'), contractSchema, UNTRUSTED),
    readStoredJson(ctx.store.file(forkId, 'signer'), SignerRecordSchema, UNTRUSTED),
    readStoredJson(ctx.store.file(forkId, 'request'), ForkRequestSchema, UNTRUSTED),
  ]);
  const contractDigest = contract.status === 'valid' ? digestOf(contract.value) : null;
  if (contractDigest === null || contractDigest !== record.contract_digest) forkReasons.push('contract_digest_mismatch');

  let publicKey: KeyObject | null = null;
  if (signer.status === 'valid') {
    try {
      publicKey = publicKeyFromHex(signer.value.public_key_hex);
    } catch {
      publicKey = null;
    }
  }
  const c = contract.status === 'valid' ? contract.value : null;
  // A contract that binds its fork (issue 12) is refused under any other id, even when copied with its whole directory.
  if (c?.fork_id !== undefined && c.fork_id !== forkId && !forkReasons.includes('fork_id_mismatch')) forkReasons.push('fork_id_mismatch');
  // Receipts bind the record's base revision: it must be the one the contract froze.
  if (c !== null && c.base_revision !== record.base_revision) forkReasons.push('record_mismatch');
  // The stored key digest is a stored fact too: it must be the digest of the stored key.
  const keyDigest = publicKey === null ? null : publicKeyDigest(rawPublicKey(publicKey));
  if (keyDigest === null || signer.status !== 'valid' || signer.value.public_key_digest !== keyDigest) forkReasons.push('signer_key_mismatch');
  else if (c && 'signer_public_key_digest' in c && 'issuer_id' in c) {
    if (keyDigest !== c.signer_public_key_digest || signer.value.issuer_id !== c.issuer_id) {
      forkReasons.push('signer_key_mismatch');
    }
  }
  // Schema 1 binds no key in its contract, schema 2 binds the key the fork itself carries: either
  // way only the local key store can say the key is the operator's. It is asked while the branches
  // are read and checked (a keychain call can take longer than all of them); its answer is in every
  // branch's reasons all the same, in the same place.
  const trustLookup = keyDigest === null || signer.status !== 'valid' ? Promise.resolve(null) : signerTrust(ctx, { issuer_id: signer.value.issuer_id, public_key_digest: keyDigest });
  const setReasons: VerificationReason[] = [];
  const profiles = request.status === 'valid' ? request.value.profiles : [];
  if (record.schema_version === 2) {
    const setDigest = request.status === 'valid' ? executorSetDigest(profiles) : null;
    if (setDigest === null || setDigest !== record.executor_set_digest || !c || !('executor_set_digest' in c) || c.executor_set_digest !== setDigest) {
      setReasons.push('executor_set_mismatch');
    }
  } else {
    // Schema 1 binds no executor set: its profiles must be exactly the legacy ones (decisions D4),
    // or an edited request.json would change the requested model shown beside a verified branch.
    const legacy = synthesizeLegacyProfiles(profiles.map((p) => p.runtime).join(','));
    if (request.status !== 'valid' || !legacy.ok || executorSetDigest(legacy.value) !== executorSetDigest(profiles)) setReasons.push('executor_set_mismatch');
  }
  const slots = branchSlots(record, setReasons.includes('executor_set_mismatch') ? null : profiles, setReasons);
  const settled = trustLookup.then((trust) => {
    if (trust !== null && !trust.trusted) forkReasons.push('signer_untrusted');
    forkReasons.push(...setReasons);
    return forkReasons;
  });
  const requiredSteps = requiredVerifierSteps(c?.verifier ?? null);
  // `settled` is awaited here too, so a failed lookup is thrown even for a fork with no branches.
  const [branches] = await Promise.all([Promise.all(slots.map((slot) => verifyBranch(ctx, forkId, record, c, contractDigest, profiles, slot, publicKey, settled, requiredSteps))), settled]);
  return { record, contract: c, forkReasons, trust: await trustLookup, branches, request: request.status === 'valid' ? request.value : null };
}

/**
 * The branches to verify come from the signed executor set (ids, profiles, canonical order), never
 * from fork.json: a branch dropped from or duplicated in fork.json makes the set disagree, and every
 * branch is then refused (`branch_set_mismatch`) rather than counted differently. When the set
 * itself is not bound (already `executor_set_mismatch`), fork.json's branches are shown, once each.
 * Schema 1 signs no set: its request's profiles stand in, bound only by being the legacy ones.
 */
function branchSlots(record: ForkRecord, signed: readonly RuntimeProfile[] | null, forkReasons: VerificationReason[]): BranchSlot[] {
  const recorded = record.branches.map((b) => b.branch_id);
  const only = (branchId: string): BranchRecord | null => {
    const matches = record.branches.filter((b) => b.branch_id === branchId);
    return matches.length === 1 ? (matches[0] ?? null) : null;
  };
  if (signed === null) {
    if (new Set(recorded).size !== recorded.length) forkReasons.push('branch_set_mismatch');
    return [...new Set(recorded)].map((branchId) => ({ branchId, profile: null, branch: only(branchId) }));
  }
  const slots = canonicalProfileOrder(signed).map((profile) => {
    const branchId = branchIdFor(profile.profile_id);
    return { branchId, profile, branch: only(branchId) };
  });
  const sorted = (ids: readonly string[]): string => JSON.stringify([...ids].sort());
  if (sorted(recorded) !== sorted(slots.map((s) => s.branchId))) forkReasons.push('branch_set_mismatch');
  return slots;
}

async function verifyBranch(
  ctx: StoredForks,
  forkId: string,
  record: ForkRecord,
  contract: Contract | null,
  contractDigest: Digest | null,
  profiles: ForkRequest['profiles'],
  slot: BranchSlot,
  publicKey: KeyObject | null,
  forkReasons: Promise<readonly VerificationReason[]>,
  requiredSteps: readonly RequiredStepId[],
): Promise<BranchEvidence> {
  const { branchId, branch } = slot;
  const profile = slot.profile ?? profiles.find((p) => branchIdFor(p.profile_id) === branchId) ?? null;
  // This branch's own reasons; the fork's come before them once the key store has answered.
  const own: VerificationReason[] = [];
  const requested = { model: profile?.model ?? null, local_provider: profile?.local_provider ?? null };
  const digests = { execution: null as string | null, wrapper: null as string | null };
  // A bound profile names the branch; fork.json's copy of those names only when nothing binds them.
  const shown = { profile_id: slot.profile?.profile_id ?? branch?.profile_id ?? profile?.profile_id ?? '', runtime: slot.profile?.runtime ?? branch?.runtime ?? profile?.runtime ?? '' };
  const result = async (receipt: ExecutionReceipt | null): Promise<BranchEvidence> => {
    const reasons = [...(await forkReasons), ...own];
    const verified = receipt !== null && reasons.length === 0;
    return {
      branch_id: branchId,
      ...shown,
      receipt_verified: verified,
      receipt: verified ? receipt : null,
      reasons,
      model_proof: modelProof(requested, verified ? receipt.telemetry : null, verified ? (receipt.wire ?? null) : null),
      execution_receipt_digest: verified ? digests.execution : null,
      fork_receipt_digest: verified ? digests.wrapper : null,
      required_steps: requiredSteps,
    };
  };
  // Dropped from or duplicated in fork.json: already branch_set_mismatch, and no one entry to read.
  if (branch === null) return result(null);
  if (profile === null || (record.schema_version === 2 && profileDigest(profile) !== branch.executor_profile_digest)) own.push('profile_digest_mismatch');
  // The profile id and runtime in fork.json must be the profile's.
  if (profile !== null && (profile.profile_id !== branch.profile_id || profile.runtime !== branch.runtime)) own.push('record_mismatch');
  if (branch.state !== 'passed' && branch.state !== 'failed') {
    own.push('not_collected');
    return result(null);
  }
  if (publicKey === null) return result(null);
  const stored = await readAttempt(attemptFiles(ctx.root, forkId, branch.branch_id, branch.attempt), record.schema_version === 2);
  const envelope = stored.receipt;
  if (envelope === undefined) {
    own.push('receipt_missing');
    return result(null);
  }
  const checked = verifyEnvelope(envelope, publicKey, ExecutionReceiptSchema);
  if (!checked.ok) {
    own.push(envelopeReason('receipt', checked.reason));
    return result(null);
  }
  const receipt = checked.receipt;
  digests.execution = checked.receipt_digest;
  // Bound to the fork the directory names, not to the fork the (unsigned) record claims to be.
  const bound =
    receipt.fork_id === forkId &&
    receipt.branch_id === branch.branch_id &&
    receipt.attempt === branch.attempt &&
    receipt.runtime === branch.runtime &&
    receipt.contract_digest === record.contract_digest &&
    receipt.executor_profile_digest === branch.executor_profile_digest &&
    receipt.base_revision === record.base_revision;
  if (!bound) own.push('receipt_binding_mismatch');
  if (receipt.status !== branch.state || receipt.failure_code !== branch.failure_code) own.push('record_mismatch');
  if (contract !== null && contractDigest !== null && !containmentAgrees(contract, contractDigest, branch.branch_id, receipt)) own.push('containment_mismatch');
  if (contract !== null && !setupAgrees(contract, receipt)) own.push('setup_mismatch');
  if (contract !== null && !worktreeIncludeAgrees(contract, receipt)) own.push('worktree_include_mismatch');
  // Issue 28: a gateway branch's receipt states what the wire saw; a receipt without a gateway claims no wire.
  if (contract !== null && bindsGateway(contract, branch.branch_id) !== (receipt.wire !== undefined)) own.push('wire_mismatch');
  if (record.schema_version === 2) {
    digests.wrapper = verifyWrapper(stored, forkId, record, contract, branch, receipt, checked.receipt_digest, publicKey, own);
  }
  return result(receipt);
}

/**
 * A receipt ran under what its contract binds (issue 11): a contained contract needs a contained
 * receipt with the same backend and the branch's runtime policy digest; a runtime-only contract (or
 * one from before containment) a receipt that claims no containment. A receipt without the field
 * predates containment, so it agrees only with a runtime-only contract.
 */
function containmentAgrees(contract: Contract, contractDigest: Digest, branchId: string, receipt: ExecutionReceipt): boolean {
  const bound = contract.containment ?? { mode: 'runtime-only' as const };
  const ran = receipt.containment ?? { mode: 'runtime-only' as const };
  if (bound.mode === 'runtime-only') return ran.mode === 'runtime-only';
  const template = bound.runtimes[branchId];
  return (
    template !== undefined &&
    ran.mode === 'contained' &&
    ran.backend === bound.backend &&
    ran.policy_digest === bound.runtime_policy_digests[branchId] &&
    ran.policy_digest === templateDigest(contractDigest, branchId, template)
  );
}

/**
 * A receipt's setup is the one its contract froze (issue 13): none without setup; with setup, every
 * step in order and passed (the runtime starts only after setup passed), contained as the contract
 * binds, with the policy digest recomputed from the contract's verifier template and setup steps.
 */
function setupAgrees(contract: Contract, receipt: ExecutionReceipt): boolean {
  const steps = contract.workflow.setup;
  const ran = receipt.setup;
  if (steps === undefined || ran === undefined) return steps === undefined && ran === undefined;
  const sameSteps = ran.steps.length === steps.length && ran.steps.every((step, i) => step.id === steps[i]?.id && step.status === 'passed');
  const bound = contract.containment ?? { mode: 'runtime-only' as const };
  if (bound.mode === 'runtime-only') return sameSteps && ran.containment.mode === 'runtime-only';
  return (
    sameSteps &&
    ran.containment.mode === 'contained' &&
    ran.containment.backend === bound.backend &&
    ran.containment.policy_digest === setupPolicyDigest(bound.verifier, steps)
  );
}

/** The files a receipt says its copy wrote (measured by the copy) are exactly the contract's `.worktreeinclude` files (path and digest, in order); none when it names none. */
function worktreeIncludeAgrees(contract: Contract, receipt: ExecutionReceipt): boolean {
  const frozen = contract.worktree_include;
  const copied = receipt.worktree_include;
  if (frozen === undefined || copied === undefined) return frozen === undefined && copied === undefined;
  return isDeepStrictEqual(copied, frozen.map(({ path, digest }) => ({ path, digest })));
}

/** Contracts whose templates' digests are kept: a few forks' worth of re-verification. */
const KEPT_CONTRACTS = 32;
const templateDigests = new Map<Digest, Map<string, Digest>>();

/**
 * A branch's containment template digest. It is a pure function of the contract's content, so it
 * is kept by contract digest (the digest of the very value the template was read from): a
 * long-lived process (Mission Control) re-verifying the same forks again and again reuses it.
 */
function templateDigest(contractDigest: Digest, branchId: string, template: ContainmentTemplate): Digest {
  let byBranch = templateDigests.get(contractDigest);
  if (byBranch === undefined) {
    byBranch = new Map();
    templateDigests.set(contractDigest, byBranch);
    const oldest = templateDigests.keys().next().value;
    if (templateDigests.size > KEPT_CONTRACTS && oldest !== undefined) templateDigests.delete(oldest);
  }
  const kept = byBranch.get(branchId);
  if (kept !== undefined) return kept;
  const digest = containmentDigest(template);
  byBranch.set(branchId, digest);
  return digest;
}

function verifyWrapper(
  stored: StoredAttempt,
  forkId: string,
  record: ForkRecord,
  contract: Contract | null,
  branch: BranchRecord,
  receipt: ExecutionReceipt,
  receiptDigest: string,
  publicKey: KeyObject,
  reasons: VerificationReason[],
): string | null {
  const envelope = stored.wrapper;
  if (envelope === undefined) {
    reasons.push('wrapper_missing');
    return null;
  }
  const checked = verifyEnvelope(envelope, publicKey, ForkReceiptSchema);
  if (!checked.ok) {
    reasons.push(envelopeReason('wrapper', checked.reason));
    return null;
  }
  const w = checked.receipt;
  const issuer = contract && 'issuer_id' in contract ? contract.issuer_id : null;
  const bound =
    w.fork_id === forkId &&
    w.branch_id === branch.branch_id &&
    w.contract_digest === record.contract_digest &&
    w.executor_profile_digest === branch.executor_profile_digest &&
    w.execution_receipt_digest === receiptDigest &&
    w.issuer_id === issuer;
  if (!bound) reasons.push('wrapper_binding_mismatch');
  const observation: Observation = { telemetry: receipt.telemetry, branch_result_digest: digestOf(branchResultOf(receipt)) };
  // The stored observation (what the wrapper signed) must be exactly the one recomputed from the
  // receipt. Equal JSON values have one canonical form, so only a stored copy that differs is digested.
  const { observation: kept } = stored;
  const keptHolds = kept?.status === 'valid' && (isDeepStrictEqual(kept.value, observation) || digestOf(kept.value) === w.observation_digest);
  if (digestOf(observation) !== w.observation_digest || !keptHolds) reasons.push('observation_mismatch');
  return checked.receipt_digest;
}

function envelopeReason(which: 'receipt' | 'wrapper', reason: EnvelopeRejectionReason): VerificationReason {
  if (reason === 'digest_mismatch') return `${which}_digest_mismatch`;
  if (reason === 'signature_invalid') return `${which}_signature_invalid`;
  return `${which}_malformed`;
}

/** One attempt's signed files as stored; the wrapper and observation only where the schema has them (2). */
interface StoredAttempt {
  readonly receipt: unknown;
  readonly wrapper: unknown;
  readonly observation: StoredJson<Observation> | null;
}

/** Read side by side, before any is judged: a file not needed after an earlier refusal costs one wasted read, never a check. */
async function readAttempt(files: AttemptFiles, wrapped: boolean): Promise<StoredAttempt> {
  const [receipt, wrapper, observation] = await Promise.all([
    readEnvelope(files.receipt),
    wrapped ? readEnvelope(files.forkReceipt) : undefined,
    wrapped ? readStoredJson(files.observation, ObservationSchema, UNTRUSTED) : null,
  ]);
  return { receipt, wrapper, observation };
}

/** A stored envelope: one that cannot be read is missing (undefined); one that is not JSON is null, which no envelope accepts. */
async function readEnvelope(file: string): Promise<unknown> {
  const stored = await readStoredJson(file, z.unknown(), UNTRUSTED);
  if (stored.status === 'unreadable') return undefined;
  return stored.status === 'valid' ? stored.value : null;
}
