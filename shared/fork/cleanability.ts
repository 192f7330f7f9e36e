import { z } from 'zod';
import { BranchIdSchema } from './ids';

/**
 * Whether `citadel fork clean` would act now, and why not: a running branch must be stopped first,
 * a pending one resumed first (its worktree is journaled as created). The orchestrator decides;
 * Mission Control shows Clean disabled with this reason.
 */
export const CleanabilitySchema = z.discriminatedUnion('cleanable', [
  z.strictObject({ cleanable: z.literal(true) }),
  z.strictObject({ cleanable: z.literal(false), reason: z.enum(['branches_running', 'branches_pending']), branch_ids: z.array(BranchIdSchema) }),
]);
export type Cleanability = z.infer<typeof CleanabilitySchema>;
