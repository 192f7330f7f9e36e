import { z } from 'zod';
import { ModelIdSchema, ProfileIdSchema } from '../../../shared/executors/profile-schema';

export const ECHO_RUNTIME_ID = 'conformance-echo';
export const ECHO_VERBOSITIES = ['quiet', 'loud'] as const;

/** The test-only runtime's profiles: one option, no local provider. Never part of an executor file. */
export const EchoProfileSchema = z.strictObject({
  profile_id: ProfileIdSchema,
  runtime: z.literal(ECHO_RUNTIME_ID),
  model: ModelIdSchema.nullable(),
  local_provider: z.null(),
  adapter_options: z.strictObject({ verbosity: z.enum(ECHO_VERBOSITIES).optional() }),
});
export type EchoProfile = z.infer<typeof EchoProfileSchema>;
