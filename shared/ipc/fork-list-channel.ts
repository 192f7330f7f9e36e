import { z } from 'zod';
import { ForkStateSchema, ForkStatusSchema } from '../fork/fork-record';

/**
 * The listForks channel's schemas, in a module of their own: Mission Control's first page parses
 * its one read with these before the rest of the contract has loaded (renderer/src/lib/client.ts).
 * contract.ts lists the channel with these very schemas.
 */

export const ForkListEntrySchema = z.union([
  ForkStatusSchema,
  z.strictObject({ fork_id: z.string(), state: z.literal('unknown'), problem: z.string() }),
]);
export type ForkListEntry = z.infer<typeof ForkListEntrySchema>;

export const ListForksRequestSchema = z.strictObject({ state: ForkStateSchema.nullable() });
export const ListForksResponseSchema = z.strictObject({ forks: z.array(ForkListEntrySchema) });
