import { z } from 'zod';
import { DigestSchema } from '../digest';

/** The only signature algorithm Citadel issues or accepts (decisions D9). */
export const SIGNATURE_ALGORITHM = 'ed25519';

/**
 * An Ed25519 signature (64 bytes) in canonical base64: 86 characters, then one whose unused low
 * bits are zero, then `==`. Only one spelling is accepted per signature, so the text cannot vary.
 */
export const Ed25519SignatureBase64Schema = z
  .string()
  .regex(/^[A-Za-z0-9+/]{85}[AQgw]==$/, 'an ed25519 signature is 64 bytes in canonical base64');

/**
 * The D9 signed envelope around a receipt: the signature is over the UTF-8 bytes of the JCS
 * serialization of `receipt`, and `receipt_digest` is the digest of the same bytes.
 */
export function signedEnvelopeSchema<R extends z.ZodType>(receiptSchema: R) {
  return z.strictObject({
    receipt: receiptSchema,
    receipt_digest: DigestSchema,
    algorithm: z.literal(SIGNATURE_ALGORITHM),
    signature: Ed25519SignatureBase64Schema,
  });
}
export type SignedEnvelope<R> = z.infer<ReturnType<typeof signedEnvelopeSchema<z.ZodType<R>>>>;

/** Why an envelope was not accepted, checked in this order (the first that applies is reported). */
export const ENVELOPE_REJECTION_REASONS = [
  'envelope_malformed',
  'algorithm_unsupported',
  'digest_mismatch',
  'signature_invalid',
  'receipt_invalid',
] as const;
export const EnvelopeRejectionReasonSchema = z.enum(ENVELOPE_REJECTION_REASONS);
export type EnvelopeRejectionReason = z.infer<typeof EnvelopeRejectionReasonSchema>;
