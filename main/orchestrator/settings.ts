import type { z } from 'zod';
import { isCitadelError } from '../../shared/errors';
import type { SettingsSchema } from '../../shared/ipc/contract';
import type { OrchestratorContext } from '../host/context';

// Enough of the public key digest for a person to compare two screens; never key material.
const FINGERPRINT_HEX = 16;

/**
 * Where this Mission Control reads and signs: the fork root, the issuer, and the key store's
 * readiness. The fingerprint is of the issuer's signing key, the one every new fork binds. Reading
 * settings has no side effect: an issuer without a key is `not_created`, and the key is created
 * where the CLI creates it, by the first fork that signs.
 */
export async function settingsOf(ctx: OrchestratorContext): Promise<z.infer<typeof SettingsSchema>> {
  const base = { fork_root: ctx.root.dir, issuer_id: ctx.issuerId, key_store: ctx.keys.store.kind, runtimes: Object.keys(ctx.adapters) };
  const unreadable = (code: string, message: string) =>
    ({ ...base, signing_key: 'unreadable', public_key_fingerprint: null, public_key_pem: null, key_store_ready: false, key_store_problem: `${code}: ${message}` }) as const;
  const status = await ctx.keys.status();
  if (!status.ready) return unreadable(status.error.code, status.error.message);
  try {
    const key = await ctx.keys.loadSigningKey(ctx.issuerId);
    if (key === null) return { ...base, signing_key: 'not_created', public_key_fingerprint: null, public_key_pem: null, key_store_ready: true, key_store_problem: null };
    const fingerprint = key.publicKeyDigest.slice('sha256:'.length, 'sha256:'.length + FINGERPRINT_HEX);
    const pem = key.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    return { ...base, signing_key: 'present', public_key_fingerprint: fingerprint, public_key_pem: pem, key_store_ready: true, key_store_problem: null };
  } catch (error) {
    if (!isCitadelError(error)) throw error;
    return unreadable(error.code, error.message);
  }
}
