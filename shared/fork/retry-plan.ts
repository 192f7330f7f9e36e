import { z } from 'zod';

const Attempt = z.number().int().positive();

/**
 * What Retry on a blocked branch does now (main/orchestrator/resolve-branch.ts decides, and refuses
 * by the same rule): `same_attempt`, a branch whose start was refused and so never ran, starts that
 * attempt again and uses none; `next_attempt` starts attempt `attempt`; `exhausted`, the contract's
 * `max_attempts` are used up (`attempt` is the last made), so Retry is refused.
 */
export const RetryPlanSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('same_attempt'), attempt: Attempt, max_attempts: Attempt }),
  z.strictObject({ kind: z.literal('next_attempt'), attempt: Attempt, max_attempts: Attempt }),
  z.strictObject({ kind: z.literal('exhausted'), attempt: Attempt, max_attempts: Attempt }),
]);
export type RetryPlan = z.infer<typeof RetryPlanSchema>;
