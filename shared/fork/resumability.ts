import { z } from 'zod';

/**
 * Who drives a fork whose lock is held: this process (Mission Control's own drive, or one of its
 * operations), or another, with the process id it recorded and since when it holds the lock (each
 * null when unknown: the lock was released and taken again while it was looked at).
 */
export const ForkDriverSchema = z.discriminatedUnion('by', [
  z.strictObject({ by: z.literal('this_process') }),
  z.strictObject({ by: z.literal('another_process'), pid: z.number().int().positive().nullable(), since: z.iso.datetime().nullable() }),
]);
export type ForkDriver = z.infer<typeof ForkDriverSchema>;

/**
 * Whether `citadel fork resume` has anything to continue, and why (or why not):
 * - `branches_unfinished`: branches are recorded pending or running and no process drives them;
 * - `landing_unsettled`: the journal holds a landing whose outcome the fork record does not show yet;
 * - `in_progress`: another operation (a drive, a landing) holds the fork now, by `driver`;
 * - `nothing_to_resume`: every branch and the landing are settled.
 */
export const ResumabilitySchema = z.discriminatedUnion('reason', [
  z.strictObject({ resumable: z.literal(true), reason: z.literal('branches_unfinished') }),
  z.strictObject({ resumable: z.literal(true), reason: z.literal('landing_unsettled') }),
  z.strictObject({ resumable: z.literal(false), reason: z.literal('in_progress'), driver: ForkDriverSchema }),
  z.strictObject({ resumable: z.literal(false), reason: z.literal('nothing_to_resume') }),
]);
export type Resumability = z.infer<typeof ResumabilitySchema>;
