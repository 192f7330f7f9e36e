import { z } from 'zod';
import { ModelIdSchema } from '../executors/profile-schema';
import { ModelProofSourceSchema, type ModelProof } from '../fork/model-proof';
import { WireFactsSchema, type WireFacts } from '../runtime/wire';
import { WireWarningSchema } from '../runtime/wire-facts';

/**
 * A branch's wire facts as replay and attestation publish them (issue 28): counts, tokens and
 * booleans as the receipt has them, and only the models whose names are public-safe (the model-ID
 * grammar); a provider that named another is said by `models_withheld`, never quoted.
 */
export const PublicWireFactsSchema = WireFactsSchema.extend({
  requested_models: z.array(ModelIdSchema),
  served_models: z.array(ModelIdSchema),
  models_withheld: z.boolean(),
  /** Where model proof took the observed model from, and where the wire and the runtime disagree. */
  observed_model_source: ModelProofSourceSchema.nullable(),
  warnings: z.array(WireWarningSchema),
});
export type PublicWireFacts = z.infer<typeof PublicWireFactsSchema>;

export function publicWireFacts(wire: WireFacts, proof: ModelProof): PublicWireFacts {
  const safe = (models: readonly string[]): string[] => models.filter((m) => ModelIdSchema.safeParse(m).success);
  const requested = safe(wire.requested_models);
  const served = safe(wire.served_models);
  return {
    ...wire,
    requested_models: requested,
    served_models: served,
    models_withheld: requested.length !== wire.requested_models.length || served.length !== wire.served_models.length,
    observed_model_source: proof.observed_model_source ?? null,
    warnings: proof.warnings ?? [],
  };
}
