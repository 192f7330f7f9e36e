import { CitadelError } from '../../../shared/errors';
import type { IssuerPublicKey } from '../../../shared/publish/attestation';
import type { KeyStore } from '../keys/key-store';
import { fingerprintOf } from '../trust/trusted-keys';

/**
 * `citadel keys export`: the issuer's public key (SPKI PEM) and its digest, the keyid its
 * attestations carry. Reads only: an issuer without a key is an error, never a new key.
 */
export async function exportIssuerKey(ctx: { readonly keys: KeyStore; readonly issuerId: string }, issuerId?: string): Promise<IssuerPublicKey> {
  const id = issuerId ?? ctx.issuerId;
  const key = await ctx.keys.loadSigningKey(id);
  if (key === null) {
    throw new CitadelError('SIGNING_KEY_NOT_FOUND', `issuer ${id} has no signing key in the ${ctx.keys.store.kind} key store (one is created by its first fork start)`, {
      details: { issuer_id: id },
    });
  }
  return {
    issuer_id: key.issuerId,
    public_key_pem: key.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    public_key_digest: key.publicKeyDigest,
    fingerprint: fingerprintOf(key.publicKeyDigest),
  };
}
