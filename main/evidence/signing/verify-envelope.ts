import { verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../../../shared/canonical-json';
import { sha256Digest, type Digest } from '../../../shared/digest';
import { SIGNATURE_ALGORITHM, signedEnvelopeSchema, type EnvelopeRejectionReason } from '../../../shared/evidence/signed-envelope';

export type EnvelopeVerification<T> =
  | { readonly ok: true; readonly receipt: T; readonly receipt_digest: Digest }
  | { readonly ok: false; readonly reason: EnvelopeRejectionReason; readonly message: string };

// The envelope's shape with any algorithm name, so that a foreign algorithm is reported as such.
// The receipt is not walked here (z.json() took as long as the signature check): its canonical
// text, computed once below for the digest and the signature, is what refuses a non-JSON receipt.
const EnvelopeShapeSchema = signedEnvelopeSchema(z.unknown()).extend({ algorithm: z.string() });

/**
 * Checks an untrusted envelope against a public key, in the order of ENVELOPE_REJECTION_REASONS,
 * and only then parses the signed receipt with its schema. The digest and signature are checked
 * over the receipt exactly as given, never over a parsed copy. Never throws.
 */
export function verifyEnvelope<S extends z.ZodType>(
  envelope: unknown,
  publicKey: KeyObject,
  receiptSchema: S,
): EnvelopeVerification<z.output<S>> {
  const shape = EnvelopeShapeSchema.safeParse(envelope);
  if (!shape.success) return reject('envelope_malformed', z.prettifyError(shape.error));
  const { algorithm, receipt_digest, signature } = shape.data;
  // A missing receipt, or one JSON cannot carry, is part of a malformed envelope: checked before the algorithm.
  const receipt = (envelope as { receipt?: unknown }).receipt;
  let text: string;
  try {
    text = canonicalJson(receipt);
  } catch (error) {
    return reject('envelope_malformed', `the receipt has no canonical JSON form: ${String(error)}`);
  }
  if (algorithm !== SIGNATURE_ALGORITHM) return reject('algorithm_unsupported', `algorithm "${algorithm}" is not ${SIGNATURE_ALGORITHM}`);
  if (sha256Digest(text) !== receipt_digest) return reject('digest_mismatch', 'receipt_digest is not the digest of the receipt');
  if (!signatureHolds(text, signature, publicKey)) return reject('signature_invalid', 'the signature does not verify with the public key');

  const parsed = receiptSchema.safeParse(receipt);
  if (!parsed.success) return reject('receipt_invalid', z.prettifyError(parsed.error));
  return { ok: true, receipt: parsed.data, receipt_digest };
}

function signatureHolds(text: string, signature: string, publicKey: KeyObject): boolean {
  if (publicKey.asymmetricKeyType !== 'ed25519') return false;
  try {
    return verify(null, Buffer.from(text, 'utf8'), publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

function reject(reason: EnvelopeRejectionReason, message: string): { ok: false; reason: EnvelopeRejectionReason; message: string } {
  return { ok: false, reason, message };
}
