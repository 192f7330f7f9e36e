import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { CitadelError } from '../../shared/errors';
import type { SignedEnvelope } from '../../shared/evidence/signed-envelope';
import { SignerRecordSchema } from '../../shared/fork/fork-request';
import { SelectionRecordSchema, selectionDigest, type SelectionRecord } from '../../shared/fork/landing';
import { publicKeyDigest, publicKeyFromHex, rawPublicKey } from '../evidence/signing/public-key';
import { signEnvelope } from '../evidence/signing/sign-envelope';
import { verifyEnvelope } from '../evidence/signing/verify-envelope';
import { signerTrust, type TrustAnchors } from '../evidence/trust/signer-trust';
import type { ForkStore } from '../store/fork-store';
import type { Journal } from '../store/journal';
import { readStoredJson, UNTRUSTED } from '../store/read-stored-json';

/**
 * The operator's selection, signed (issue 12): the journal that binds selection.json is unsigned,
 * so a process that can write the fork root could write a selection and a matching journal line.
 * `fork select` seals the record in a receipt envelope with the fork's signing key (the issuer key
 * that signs its receipts) as selection.sig.json; a reader holds it to the key signer.json names
 * and to the trust anchor receipts are checked against.
 */

/** What signs and checks: the fork store and the local key store (an OrchestratorContext is one). */
export interface DecisionAnchors extends TrustAnchors {
  readonly store: ForkStore;
}

/**
 * `signed`: the signature verifies under the fork's trusted signer. `unsigned`: a selection made
 * before selections were signed, bound by the journal alone. `invalid`: anything else, with why.
 */
export type SelectionSignature = { readonly status: 'signed' } | { readonly status: 'unsigned' } | { readonly status: 'invalid'; readonly message: string };

/** The journal data `fork select` adds to its lines: once one says so, no selection of the fork stands unsigned. */
export const SIGNED_SELECTION = { signed: true } as const;

/** The selection sealed by the key that signed the fork's receipts (the one signer.json names); SIGNING_KEY_MISMATCH when this machine does not hold it. */
export async function signSelection(ctx: DecisionAnchors, forkId: string, selection: SelectionRecord): Promise<SignedEnvelope<SelectionRecord>> {
  const signer = await ctx.store.readJson(forkId, 'signer', SignerRecordSchema);
  const key = await ctx.keys.loadSigningKey(signer.issuer_id);
  if (key === null || key.publicKeyDigest !== signer.public_key_digest) {
    throw new CitadelError('SIGNING_KEY_MISMATCH', `this machine's key store does not hold the key that signed fork ${forkId}, so it cannot sign its selection`, {
      details: { fork_id: forkId },
    });
  }
  return signEnvelope(selection, key.privateKey);
}

/** How `selection` (selection.json as read) stands against selection.sig.json, the fork's signer and the trust anchor. */
export async function selectionSignature(ctx: DecisionAnchors, forkId: string, selection: SelectionRecord, journal: Pick<Journal, 'records'>): Promise<SelectionSignature> {
  const stored = await readStoredJson(ctx.store.file(forkId, 'selectionSignature'), z.unknown(), UNTRUSTED);
  if (stored.status === 'unreadable' && stored.error.code === 'ENOENT') {
    // Deleting the signature must not turn a signed fork's selection into a legacy one.
    const signedBefore = journal.records().some((r) => r.effect === 'selection.record' && r.data?.signed === true);
    return signedBefore ? invalid('the journal records signed selections, but selection.json has no signature') : { status: 'unsigned' };
  }
  if (stored.status !== 'valid') return invalid(`selection.sig.json cannot be read as JSON (${stored.status})`);
  const signer = await readStoredJson(ctx.store.file(forkId, 'signer'), SignerRecordSchema, UNTRUSTED);
  if (signer.status !== 'valid') return invalid('the fork has no readable signer');
  const publicKey = publicKeyOf(signer.value.public_key_hex);
  if (publicKey === null) return invalid('the fork signer is not an ed25519 public key');
  const keyDigest = publicKeyDigest(rawPublicKey(publicKey));
  if (keyDigest !== signer.value.public_key_digest) return invalid("the fork signer's key digest is not its key's");
  const checked = verifyEnvelope(stored.value, publicKey, SelectionRecordSchema);
  if (!checked.ok) return invalid(`the selection signature does not verify under the fork's signer (${checked.reason})`);
  if (checked.receipt_digest !== selectionDigest(selection)) return invalid('selection.sig.json signs another selection than selection.json');
  if (selection.fork_id !== forkId) return invalid(`the signed selection is fork ${selection.fork_id}'s, not ${forkId}'s`);
  const trust = await signerTrust(ctx, { issuer_id: signer.value.issuer_id, public_key_digest: keyDigest });
  return trust.trusted ? { status: 'signed' } : invalid(trust.message);
}

function publicKeyOf(hex: string): KeyObject | null {
  try {
    return publicKeyFromHex(hex);
  } catch {
    return null;
  }
}

function invalid(message: string): SelectionSignature {
  return { status: 'invalid', message };
}
