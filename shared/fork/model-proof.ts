import { z } from 'zod';
import { ModelIdSchema } from '../executors/profile-schema';
import type { Telemetry } from '../runtime/telemetry';

export const ModelProofStatusSchema = z.enum(['passed', 'failed', 'unknown']);
export type ModelProofStatus = z.infer<typeof ModelProofStatusSchema>;

/** The three distinct facts Mission Control shows (executor-profiles.md, Model proof). */
export const ModelProofSchema = z.strictObject({
  /** From the signed executor profile; `default` for a legacy null-model profile. */
  requested_model: z.string(),
  requested_provider: z.string().nullable(),
  /** From trusted adapter telemetry only; null when missing, untrusted or unparsable. */
  observed_model: z.string().nullable(),
  status: ModelProofStatusSchema,
});
export type ModelProof = z.infer<typeof ModelProofSchema>;

/**
 * An explicit model (every local-provider model included) needs trusted observed evidence that
 * matches exactly: a mismatch fails, missing evidence is unknown, never passed. A null-model
 * (legacy) profile requests `default`: unknown "unless the adapter produces trusted observed
 * identity" (executor-profiles.md), which then proves it. `trusted` is null when the telemetry
 * does not come from a cryptographically verified receipt.
 */
export function modelProof(requested: { model: string | null; local_provider: string | null }, trusted: Telemetry | null): ModelProof {
  const reported = trusted !== null && trusted.observed_model_source !== null ? trusted.observed_model : null;
  // An identity outside the public-safe model grammar is unparsable: unknown, never a pass.
  const observed = reported !== null && ModelIdSchema.safeParse(reported).success ? reported : null;
  const status: ModelProofStatus = observed === null ? 'unknown' : requested.model === null || observed === requested.model ? 'passed' : 'failed';
  return { requested_model: requested.model ?? 'default', requested_provider: requested.local_provider, observed_model: observed, status };
}
