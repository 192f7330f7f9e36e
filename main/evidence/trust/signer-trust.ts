import type { Digest } from '../../../shared/digest';
import { isCitadelError } from '../../../shared/errors';
import type { KeyStore } from '../keys/key-store';
import { fingerprintOf, isTrustedKey } from './trusted-keys';

/** Where trust comes from: the issuer keys this machine's key store holds, and the public keys imported into it. */
export interface TrustAnchors {
  readonly keys: KeyStore;
  /** The operator's issuer (CITADEL_ISSUER or the default). */
  readonly issuerId: string;
}

/**
 * Whether a fork's signing key is one this machine trusts. `local_key` is what the key store held
 * for the issuers looked up (as Settings names it); the message says why in words.
 */
export type SignerTrust =
  | { readonly trusted: true; readonly issuer_id: string }
  | { readonly trusted: false; readonly local_key: 'present' | 'not_created' | 'unreadable'; readonly message: string };

/**
 * Looks the signer's key up among the local issuer keys: the operator's issuer and the issuer the
 * fork names (a key this store holds was made by this operator, whatever the fork claims), then
 * among the public keys the operator imported into the key store (`citadel trust import`). A key
 * the fork's own files carry is never trusted for being there: a re-signed chain is consistent.
 * Reading never creates a key, so with no local key every fork is untrusted.
 */
export async function signerTrust(anchors: TrustAnchors, signer: { readonly issuer_id: string; readonly public_key_digest: Digest }): Promise<SignerTrust> {
  const issuers = [...new Set([anchors.issuerId, signer.issuer_id])];
  const held: Digest[] = [];
  const problems: string[] = [];
  for (const issuerId of issuers) {
    try {
      const key = await anchors.keys.loadSigningKey(issuerId);
      if (key === null) continue;
      if (key.publicKeyDigest === signer.public_key_digest) return { trusted: true, issuer_id: issuerId };
      held.push(key.publicKeyDigest);
    } catch (error) {
      if (!isCitadelError(error)) throw error;
      problems.push(`${error.code}: ${error.message}`);
    }
  }
  // Then the keys the operator imported (`citadel trust import`), held by the same key store.
  try {
    if (await isTrustedKey(anchors.keys, signer.public_key_digest)) return { trusted: true, issuer_id: signer.issuer_id };
  } catch (error) {
    if (!isCitadelError(error)) throw error;
    problems.push(`${error.code}: ${error.message}`);
  }
  const signedBy = `signed by key ${fingerprintOf(signer.public_key_digest)}`;
  if (held.length > 0) {
    const local = held.map(fingerprintOf).join(', ');
    return { trusted: false, local_key: 'present', message: `the fork is ${signedBy}, not by the issuer key this machine holds (${local}) nor by an imported key: its evidence is not trusted` };
  }
  if (problems.length > 0) {
    return { trusted: false, local_key: 'unreadable', message: `the fork is ${signedBy}; the key store could not be read (${problems.join('; ')}), so no evidence can be trusted` };
  }
  const names = issuers.join(', ');
  return {
    trusted: false,
    local_key: 'not_created',
    message: `the fork is ${signedBy}; the ${anchors.keys.store.kind} key store holds no key for ${names} and no imported key matches, so its evidence cannot be trusted on this machine`,
  };
}
