import { z } from 'zod';
import { ForkStateSchema } from '../fork/fork-record';
import { ForkProblemSchema, ForkSummarySchema } from '../fork/fork-summary';

/**
 * The listForks channel's schemas, in a module of their own: Mission Control's first page parses
 * its one read with these before the rest of the contract has loaded (renderer/src/lib/client.ts).
 * contract.ts lists the channel with these very schemas.
 */

export const ForkListEntrySchema = z.union([ForkSummarySchema, ForkProblemSchema]);
export type ForkListEntry = z.infer<typeof ForkListEntrySchema>;

export const ListForksRequestSchema = z.strictObject({ state: ForkStateSchema.nullable() });
export const ListForksResponseSchema = z.strictObject({ forks: z.array(ForkListEntrySchema) });
