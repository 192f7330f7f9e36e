import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { CitadelError } from '../../../shared/errors';

// A stored signing key is its PKCS#8 DER in base64 (one line): self-describing (the algorithm OID
// is inside), read natively by node:crypto and `openssl pkey`, and the same text in both stores.
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const MAX_TEXT_LENGTH = 1024;

export function generateSigningKey(): KeyObject {
  return generateKeyPairSync('ed25519').privateKey;
}

export function privateKeyToText(privateKey: KeyObject): string {
  return privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
}

/**
 * Reads a stored key back. Anything that is not exactly one canonical Ed25519 PKCS#8 key is
 * SIGNING_KEY_CORRUPT: the caller must never replace it, since receipts already signed with the
 * old key would lose their signer.
 */
export function privateKeyFromText(text: string, where: { issuerId: string; store: string }): KeyObject {
  const corrupt = (why: string): CitadelError =>
    new CitadelError('SIGNING_KEY_CORRUPT', `the stored signing key of ${where.issuerId} in the ${where.store} is unreadable: ${why}`, {
      details: { issuer_id: where.issuerId, store: where.store, reason: why },
    });
  if (text.length > MAX_TEXT_LENGTH || !BASE64.test(text)) throw corrupt('not one line of base64');
  const der = Buffer.from(text, 'base64');
  if (der.toString('base64') !== text) throw corrupt('not canonical base64');
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    throw corrupt('not a PKCS#8 private key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw corrupt(`a ${String(key.asymmetricKeyType)} key, not ed25519`);
  if (!key.export({ format: 'der', type: 'pkcs8' }).equals(der)) throw corrupt('trailing or non-canonical PKCS#8 data');
  return key;
}
