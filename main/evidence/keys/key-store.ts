import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Digest } from '../../../shared/digest';
import { CitadelError, isCitadelError, type CitadelErrorData } from '../../../shared/errors';
import { publicKeyDigest, rawPublicKey } from '../signing/public-key';
import { fileKeyBackend } from './file-key-backend';
import { parseIssuerId } from './issuer-id';
import type { KeyBackend, KeyStoreDescription } from './key-backend';
import { osKeychainBackend } from './os-keychain-backend';
import { generateSigningKey, privateKeyFromText, privateKeyToText } from './private-key-text';

export { defaultIssuerId } from './issuer-id';
export type { KeyStoreDescription } from './key-backend';

/** A measured dying keychain provider hung for over a minute; no keychain call may wait longer than this. */
const DEFAULT_KEYCHAIN_TIMEOUT_MS = 5000;

export interface SigningKey {
  readonly issuerId: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** The raw 32-byte Ed25519 public key. */
  readonly publicKeyRaw: Uint8Array;
  /** `signer_public_key_digest` (decisions D9). */
  readonly publicKeyDigest: Digest;
  readonly store: KeyStoreDescription;
}

/** Readiness for display and diagnostics: names and codes only, never key material. */
export type KeyStoreStatus =
  | { readonly store: KeyStoreDescription; readonly ready: true }
  | { readonly store: KeyStoreDescription; readonly ready: false; readonly error: CitadelErrorData };

export interface KeyStore {
  readonly store: KeyStoreDescription;
  /** The issuer's key, created on first use. A stored key that cannot be read is an error, never replaced. */
  loadOrCreateSigningKey(issuerId: string): Promise<SigningKey>;
  /** The issuer's key if it has one; never creates it (for displays, which must have no side effect). */
  loadSigningKey(issuerId: string): Promise<SigningKey | null>;
  status(): Promise<KeyStoreStatus>;
  /** The stored list of imported public keys (parsed by main/evidence/trust/trusted-keys.ts); null when none. */
  readTrustedKeys(): Promise<string | null>;
  writeTrustedKeys(text: string): Promise<void>;
}

export interface KeyStoreOptions {
  /** The folder the file key store keeps `<issuer_id>.key` in (the fork root's `keys/`). */
  readonly keysDir: string;
  /** Read for CITADEL_KEYSTORE only; the keychain library itself reads the process environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly keychainTimeoutMs?: number;
}

/**
 * One ed25519 key per issuer (decisions D9): in the OS keychain (service `citadel`, account =
 * issuer id), or, only when CITADEL_KEYSTORE=file, in the weaker file key store.
 */
export function openKeyStore(options: KeyStoreOptions): KeyStore {
  const choice = (options.env ?? process.env).CITADEL_KEYSTORE;
  let backend: KeyBackend;
  if (choice === undefined || choice === '' || choice === 'os-keychain') {
    backend = osKeychainBackend(options.keychainTimeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS);
  } else if (choice === 'file') {
    backend = fileKeyBackend(options.keysDir);
  } else {
    throw new CitadelError('KEY_STORE_CONFIG_INVALID', `CITADEL_KEYSTORE=${JSON.stringify(choice)} is neither "file" nor "os-keychain"`, {
      details: { CITADEL_KEYSTORE: choice },
    });
  }
  const store = backend.description;
  const signingKey = (id: string, text: string): SigningKey => {
    const privateKey = privateKeyFromText(text, { issuerId: id, store: store.kind });
    const publicKey = createPublicKey(privateKey);
    const publicKeyRaw = rawPublicKey(publicKey);
    return { issuerId: id, privateKey, publicKey, publicKeyRaw, publicKeyDigest: publicKeyDigest(publicKeyRaw), store };
  };

  return {
    store,
    async loadOrCreateSigningKey(issuerId) {
      const id = parseIssuerId(issuerId);
      return signingKey(id, (await backend.read(id)) ?? (await backend.create(id, privateKeyToText(generateSigningKey()))));
    },
    async loadSigningKey(issuerId) {
      const id = parseIssuerId(issuerId);
      const text = await backend.read(id);
      return text === null ? null : signingKey(id, text);
    },
    async status() {
      try {
        await backend.check();
        return { store, ready: true };
      } catch (error) {
        if (!isCitadelError(error)) throw error;
        return { store, ready: false, error: error.toData() };
      }
    },
    readTrustedKeys: () => backend.readTrusted(),
    writeTrustedKeys: (text) => backend.writeTrusted(text),
  };
}
