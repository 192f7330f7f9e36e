import { z } from 'zod';
import { LocalProviderSchema, ModelIdSchema, ProfileIdSchema } from './runtimes/descriptor';

/** The runtime a profile names, and so a branch runs: any registered adapter's id, not only claude | codex. */
export const RuntimeLabelSchema = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/);

/**
 * A profile as the engine stores, digests and launches it: the five executor-profile fields with
 * any runtime label. The engine accepts a profile only when an adapter is registered for its
 * runtime, and that adapter's own strict profile schema checks the rest (RuntimeAdapter.profileSchema).
 * Executor files never use this shape: each names one of the runtimes profile-schema.ts lists,
 * checked by that runtime's descriptor.
 */
export const RuntimeProfileSchema = z.strictObject({
  profile_id: ProfileIdSchema,
  runtime: RuntimeLabelSchema,
  model: ModelIdSchema.nullable(),
  local_provider: LocalProviderSchema.nullable(),
  adapter_options: z.record(z.string(), z.unknown()),
});
export type RuntimeProfile = z.infer<typeof RuntimeProfileSchema>;
