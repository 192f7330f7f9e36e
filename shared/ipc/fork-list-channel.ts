import { z } from 'zod';
import { ForkStateSchema, type ForkStatus } from '../fork/fork-record';
import { ForkSummarySchema } from '../fork/fork-summary';

/**
 * The listForks channel's schemas, in a module of their own: Mission Control's first page parses
 * its one read with these before the rest of the contract has loaded (renderer/src/lib/client.ts).
 * contract.ts lists the channel with these very schemas.
 */

/** A fork whose record could not be read: listed as unknown with its reason, never hidden. */
export const ForkProblemSchema = z.strictObject({ fork_id: z.string(), state: z.literal('unknown'), problem: z.string() });
export type ForkProblem = z.infer<typeof ForkProblemSchema>;

/** Every fork as `fork status` shows it (the CLI's list), before the channel's summary of it. */
export type ForkListing = ForkStatus | ForkProblem;

export const ForkListEntrySchema = z.union([ForkSummarySchema, ForkProblemSchema]);
export type ForkListEntry = z.infer<typeof ForkListEntrySchema>;

export const ListForksRequestSchema = z.strictObject({ state: ForkStateSchema.nullable() });
export const ListForksResponseSchema = z.strictObject({ forks: z.array(ForkListEntrySchema) });
