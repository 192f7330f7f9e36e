import { z } from 'zod';
import { ModelIdSchema } from '../executors/profile-schema';
import { ObservedModelSourceSchema, type Telemetry } from '../runtime/telemetry';
import type { WireFacts } from '../runtime/wire';
import { WireWarningSchema, wireTelemetryWarnings } from '../runtime/wire-facts';

export const ModelProofStatusSchema = z.enum(['passed', 'failed', 'unknown']);
export type ModelProofStatus = z.infer<typeof ModelProofStatusSchema>;

/**
 * Where the observed model came from (issue 28): the provider gateway's wire, Citadel's own witness
 * and the trusted source; or, when the wire saw no served model (no gateway, or none named), the
 * runtime's own telemetry, the secondary source (with a gateway, a claim that never passes).
 */
export const ModelProofSourceSchema = z.enum(['gateway_wire', ...ObservedModelSourceSchema.options]);
export type ModelProofSource = z.infer<typeof ModelProofSourceSchema>;

/** The three distinct facts Mission Control shows (executor-profiles.md, Model proof). */
export const ModelProofSchema = z.strictObject({
  /** From the signed executor profile; `default` for a legacy null-model profile. */
  requested_model: z.string(),
  requested_provider: z.string().nullable(),
  /** From the wire or trusted adapter telemetry only; null when missing, untrusted or unparsable. */
  observed_model: z.string().nullable(),
  status: ModelProofStatusSchema,
  /** Issue 28: where `observed_model` came from; null when nothing was observed. Optional only for documents written before. */
  observed_model_source: ModelProofSourceSchema.nullable().optional(),
  /** Issue 28: where the wire and the runtime's telemetry disagree (model, tokens). */
  warnings: z.array(WireWarningSchema).optional(),
});
export type ModelProof = z.infer<typeof ModelProofSchema>;

/**
 * An explicit model (every local-provider model included) needs trusted observed evidence that
 * matches exactly: a mismatch fails, missing evidence is unknown, never passed. A null-model
 * (legacy) profile requests `default`: unknown "unless the adapter produces trusted observed
 * identity" (executor-profiles.md), which then proves it. `trusted` and `wire` are null when they
 * do not come from a cryptographically verified receipt; `wire` also when the run had no gateway.
 *
 * The wire outranks the runtime (issue 28): it saw what the provider answered, where stdout and a
 * rollout are written inside the sandbox. Several served models, or one other than the profile's,
 * fail the proof whatever the runtime says; a wire that saw none leaves the runtime's claim at most
 * unknown. Without a wire the proof has exactly its earlier shape.
 */
export function modelProof(requested: { model: string | null; local_provider: string | null }, trusted: Telemetry | null, wire: WireFacts | null = null): ModelProof {
  const base = { requested_model: requested.model ?? 'default', requested_provider: requested.local_provider };
  const reported = trusted !== null && trusted.observed_model_source !== null ? trusted.observed_model : null;
  // An identity outside the public-safe model grammar is unparsable: unknown, never a pass.
  const observed = reported !== null && ModelIdSchema.safeParse(reported).success ? reported : null;
  const status: ModelProofStatus = observed === null ? 'unknown' : requested.model === null || observed === requested.model ? 'passed' : 'failed';
  if (wire === null) return { ...base, observed_model: observed, status };
  const warnings = trusted === null ? [] : wireTelemetryWarnings(wire, trusted);
  if (wire.served_models.length === 0) {
    // The wire saw no served model: the runtime's claim is shown, marked as the secondary source, but
    // proves nothing. It was written inside the sandbox (a session file, stdout), where the agent
    // could write it too, and a gateway that saw no model served is no witness for it: at most unknown.
    const claimed: ModelProofStatus = status === 'passed' ? 'unknown' : status;
    return { ...base, observed_model: observed, status: claimed, observed_model_source: observed === null ? null : (trusted?.observed_model_source ?? null), warnings };
  }
  const [first] = wire.served_models;
  const served = wire.served_models.length === 1 && first !== undefined ? first : null;
  // Served as asked: one model served, the profile's own; a legacy profile names none, so one its requests named.
  // A refused request for another model changes nothing here: it was never served.
  const asAsked = served !== null && (requested.model === null ? wire.requested_models.includes(served) : served === requested.model);
  const shown = served !== null && ModelIdSchema.safeParse(served).success ? served : null;
  const wireStatus: ModelProofStatus = !asAsked ? 'failed' : shown === null ? 'unknown' : 'passed';
  return { ...base, observed_model: shown, status: wireStatus, observed_model_source: 'gateway_wire', warnings };
}
