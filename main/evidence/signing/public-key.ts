import { createPublicKey, type KeyObject } from 'node:crypto';
import { digestOf, type Digest } from '../../../shared/digest';
import { CitadelError } from '../../../shared/errors';

const RAW_PUBLIC_KEY_BYTES = 32;
const PUBLIC_KEY_HEX = /^[0-9a-f]{64}$/;

// Keys cross node:crypto as JWK (RFC 8037: `x` is the raw key in base64url), not as SPKI DER:
// measured, importing from DER took ~7x as long and exporting ~60x (OpenSSL 3's decoders and
// encoders), once per key on every re-verification. Both accept exactly the same 32-byte keys.

/** The raw 32-byte Ed25519 public key of a public (or private) KeyObject. */
export function rawPublicKey(key: KeyObject): Uint8Array {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  if (publicKey.asymmetricKeyType !== 'ed25519') throw invalid(`expected an ed25519 key, got ${String(publicKey.asymmetricKeyType)}`);
  return new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url'));
}

/** A public KeyObject from a raw 32-byte Ed25519 public key; build it once and keep it for every verify. */
export function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  assertRawLength(raw);
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
}

/** The raw public key as 64 lowercase hex digits, the form stored in fork state. */
export function publicKeyHex(key: KeyObject): string {
  return Buffer.from(rawPublicKey(key)).toString('hex');
}

export function publicKeyFromHex(hex: string): KeyObject {
  if (!PUBLIC_KEY_HEX.test(hex)) throw invalid('a public key is 64 lowercase hex digits');
  return publicKeyFromRaw(Buffer.from(hex, 'hex'));
}

/** `signer_public_key_digest` (decisions D9): the digest of the raw key as a lowercase hex JSON string. */
export function publicKeyDigest(raw: Uint8Array): Digest {
  assertRawLength(raw);
  return digestOf(Buffer.from(raw).toString('hex'));
}

function assertRawLength(raw: Uint8Array): void {
  if (raw.length !== RAW_PUBLIC_KEY_BYTES) throw invalid(`a raw ed25519 public key is ${RAW_PUBLIC_KEY_BYTES} bytes, got ${raw.length}`);
}

function invalid(message: string): CitadelError {
  return new CitadelError('PUBLIC_KEY_INVALID', message);
}
