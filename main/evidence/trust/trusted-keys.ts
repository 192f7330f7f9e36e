import { z } from 'zod';
import { DigestSchema, type Digest } from '../../../shared/digest';
import { CitadelError } from '../../../shared/errors';
import { SignerRecordSchema } from '../../../shared/fork/fork-request';
import { IssuerIdSchema } from '../../../shared/fork/ids';
import { IsoTimeSchema } from '../../../shared/iso-time';
import { readBoundedText } from '../../store/read-bounded-text';
import type { KeyStore } from '../keys/key-store';
import { publicKeyDigest, publicKeyFromHex, rawPublicKey } from '../signing/public-key';

/**
 * Public keys the operator explicitly trusts besides the local issuer key (issue 12, item 1): a
 * fork signed by one of them verifies here. The list is one entry of the key store (the OS
 * keychain in production), never a file of the fork root, so a process that can write Citadel's
 * files cannot add a key the operator did not import.
 */

const PUBLIC_KEY_HEX = z.string().regex(/^[0-9a-f]{64}$/);

export const TrustedKeySchema = z.strictObject({
  public_key_hex: PUBLIC_KEY_HEX,
  public_key_digest: DigestSchema,
  /** The issuer the imported file named (a signer.json does); null for a bare key. Informational. */
  issuer_id: IssuerIdSchema.nullable(),
  imported_at: IsoTimeSchema,
});
export type TrustedKey = z.infer<typeof TrustedKeySchema>;

const TrustedKeyListSchema = z.strictObject({ schema_version: z.literal(1), keys: z.array(TrustedKeySchema) });

/** The largest public key file read: a signer.json is a few hundred bytes. */
const MAX_KEY_FILE_BYTES = 16 * 1024;
/** As Settings and `signer_untrusted` messages show a key digest: enough for a person to compare. */
export const FINGERPRINT_HEX = 16;

export const fingerprintOf = (digest: Digest): string => digest.slice('sha256:'.length, 'sha256:'.length + FINGERPRINT_HEX);

/** The imported keys; an entry that does not parse (or whose digests disagree) is TRUSTED_KEYS_CORRUPT, never an empty list. */
export async function listTrustedKeys(keys: Pick<KeyStore, 'readTrustedKeys' | 'store'>): Promise<TrustedKey[]> {
  const text = await keys.readTrustedKeys();
  if (text === null) return [];
  let parsed: z.infer<typeof TrustedKeyListSchema> | null = null;
  try {
    const result = TrustedKeyListSchema.safeParse(JSON.parse(text));
    parsed = result.success ? result.data : null;
  } catch {
    parsed = null;
  }
  if (parsed === null || parsed.keys.some((k) => digestOfHex(k.public_key_hex) !== k.public_key_digest)) {
    throw new CitadelError('TRUSTED_KEYS_CORRUPT', `the ${keys.store.kind} key store's list of imported public keys is malformed; no imported key is trusted until it is repaired`);
  }
  return parsed.keys;
}

/** Whether `digest` is the digest of an imported key. */
export async function isTrustedKey(keys: Pick<KeyStore, 'readTrustedKeys' | 'store'>, digest: Digest): Promise<boolean> {
  return (await listTrustedKeys(keys)).some((k) => k.public_key_digest === digest);
}

/**
 * `citadel trust import FILE`: a public key in a form Citadel writes, a fork's `signer.json` (its
 * stored digest must be its key's) or the bare 64 hex digits of `public_key_hex`. Importing a key
 * already trusted changes nothing.
 */
export async function importTrustedKey(keys: KeyStore, file: string, now: Date): Promise<{ key: TrustedKey; added: boolean }> {
  const read = await readBoundedText(file, MAX_KEY_FILE_BYTES, 'follow');
  if (!read.ok) {
    const reason = read.kind === 'unreadable' ? read.reason : read.violation.rule;
    throw invalidFile(file, `it cannot be read as a small regular text file (${reason})`);
  }
  const { hex, issuerId } = parseKeyText(file, read.text);
  const existing = await listTrustedKeys(keys);
  const digest = digestOfHex(hex);
  const held = existing.find((k) => k.public_key_digest === digest);
  if (held) return { key: held, added: false };
  const key: TrustedKey = { public_key_hex: hex, public_key_digest: digest, issuer_id: issuerId, imported_at: now.toISOString() };
  await keys.writeTrustedKeys(JSON.stringify({ schema_version: 1, keys: [...existing, key] }));
  return { key, added: true };
}

/** `citadel trust remove FINGERPRINT`: the fingerprint as listed (16 hex digits) or the full `sha256:` digest. */
export async function removeTrustedKey(keys: KeyStore, fingerprint: string): Promise<TrustedKey> {
  const wanted = fingerprint.trim().toLowerCase();
  const existing = await listTrustedKeys(keys);
  const match = existing.find((k) => k.public_key_digest === wanted || fingerprintOf(k.public_key_digest) === wanted);
  if (!match) {
    throw new CitadelError('TRUSTED_KEY_NOT_FOUND', `no imported public key has fingerprint ${JSON.stringify(fingerprint)}; citadel trust list shows them`, {
      details: { fingerprint },
    });
  }
  await keys.writeTrustedKeys(JSON.stringify({ schema_version: 1, keys: existing.filter((k) => k !== match) }));
  return match;
}

function parseKeyText(file: string, text: string): { hex: string; issuerId: string | null } {
  const trimmed = text.trim();
  if (PUBLIC_KEY_HEX.safeParse(trimmed).success) return { hex: checkedHex(file, trimmed), issuerId: null };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    throw invalidFile(file, 'it is neither a signer.json document nor 64 lowercase hex digits');
  }
  const signer = SignerRecordSchema.safeParse(json);
  if (!signer.success) throw invalidFile(file, 'it is JSON but not a signer.json document (issuer_id, public_key_hex, public_key_digest, key_store)');
  const hex = checkedHex(file, signer.data.public_key_hex);
  if (digestOfHex(hex) !== signer.data.public_key_digest) throw invalidFile(file, 'its public_key_digest is not the digest of its public_key_hex');
  return { hex, issuerId: signer.data.issuer_id };
}

// A hex string that is not a valid ed25519 point is refused here, not at the first verify.
function checkedHex(file: string, hex: string): string {
  try {
    publicKeyFromHex(hex);
  } catch {
    throw invalidFile(file, 'its public key is not an ed25519 public key');
  }
  return hex;
}

const digestOfHex = (hex: string): Digest => publicKeyDigest(rawPublicKey(publicKeyFromHex(hex)));

function invalidFile(file: string, why: string): CitadelError {
  return new CitadelError('TRUSTED_KEY_FILE_INVALID', `${file} is not a public key file: ${why}`, { details: { file } });
}
