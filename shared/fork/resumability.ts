import { z } from 'zod';

/**
 * Whether `citadel fork resume` has anything to continue, and why (or why not):
 * - `branches_unfinished`: branches are recorded pending or running and no process drives them;
 * - `landing_unsettled`: the journal holds a landing whose outcome the fork record does not show yet;
 * - `in_progress`: another operation (a drive, a landing) holds the fork now;
 * - `nothing_to_resume`: every branch and the landing are settled.
 */
export const ResumabilitySchema = z.discriminatedUnion('resumable', [
  z.strictObject({ resumable: z.literal(true), reason: z.enum(['branches_unfinished', 'landing_unsettled']) }),
  z.strictObject({ resumable: z.literal(false), reason: z.enum(['in_progress', 'nothing_to_resume']) }),
]);
export type Resumability = z.infer<typeof ResumabilitySchema>;
