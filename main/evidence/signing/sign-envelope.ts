import { sign, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../../../shared/canonical-json';
import { sha256Digest } from '../../../shared/digest';
import { SIGNATURE_ALGORITHM, type SignedEnvelope } from '../../../shared/evidence/signed-envelope';

/**
 * Seals a receipt in a D9 envelope. The digest and the signature cover the same bytes: the UTF-8
 * of the receipt's RFC 8785 serialization (`sha256Digest` of that text is `digestOf(receipt)`).
 */
export function signEnvelope<R>(receipt: R, privateKey: KeyObject): SignedEnvelope<R> {
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
    throw new TypeError('signEnvelope needs an ed25519 private key');
  }
  const text = canonicalJson(receipt);
  return {
    receipt,
    receipt_digest: sha256Digest(text),
    algorithm: SIGNATURE_ALGORITHM,
    signature: sign(null, Buffer.from(text, 'utf8'), privateKey).toString('base64'),
  };
}
