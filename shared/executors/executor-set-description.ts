import { z } from 'zod';
import { DigestSchema } from '../digest';
import { ExecutorRuntimeIdSchema, LocalProviderSchema, ModelIdSchema, ProfileIdSchema } from './profile-schema';

/** What `citadel executors validate --json` prints (decisions D13), and what a profile preview shows. */
export const ExecutorSetDescriptionSchema = z.strictObject({
  profiles: z.array(
    z.strictObject({
      profile_id: ProfileIdSchema,
      branch_id: z.string(),
      runtime: ExecutorRuntimeIdSchema,
      model: ModelIdSchema.nullable(),
      local_provider: LocalProviderSchema.nullable(),
      profile_digest: DigestSchema,
      argv: z.array(z.string()),
    }),
  ),
  executor_set_digest: DigestSchema,
});
export type ExecutorSetDescription = z.infer<typeof ExecutorSetDescriptionSchema>;

/** Branch IDs are `branch-<profile_id>` (decisions D2). */
export function branchIdFor(profileId: string): string {
  return `branch-${profileId}`;
}
