import { z } from 'zod';
import { DigestSchema } from '../digest';
import { RuntimeProfileSchema } from '../executors/runtime-profile';
import { IssuerIdSchema } from './ids';

/**
 * The exact recorded request (private fork state): what `resume` continues, so it depends on
 * neither the original command line nor any context window. Profiles use the engine's shape (any
 * registered runtime); the adapter's own schema checks each one before it is launched.
 */
export const ForkRequestSchema = z.strictObject({
  repo: z.string(),
  profiles: z.array(RuntimeProfileSchema).min(2),
});
export type ForkRequest = z.infer<typeof ForkRequestSchema>;

/** The signer bound to a fork: the public key is stored, the private key stays in the key store. */
export const SignerRecordSchema = z.strictObject({
  issuer_id: IssuerIdSchema,
  public_key_hex: z.string().regex(/^[0-9a-f]{64}$/),
  public_key_digest: DigestSchema,
  key_store: z.enum(['os-keychain', 'file']),
});
export type SignerRecord = z.infer<typeof SignerRecordSchema>;
