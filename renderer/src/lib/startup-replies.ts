import { withParser, type z } from 'zod';
import { ListForksResponseSchema } from '../../../shared/ipc/fork-list-channel';
import { replyEnvelope } from '../../../shared/ipc/reply-envelope';
import type { ChannelName } from '../../../shared/ipc/contract';
import { listForksResponseParser } from './generated/startup-parsers';

/**
 * The replies Mission Control's first page (the fork list) parses, built from the contract's own
 * schemas for those channels but without the rest of the contract, which loads beside them
 * (client.ts). Their responses are checked first by zod's compiled form of the same schema,
 * generated ahead of time and committed (build/startup-parsers.ts says why); anything it does not pass goes
 * through zod's own parser, so errors read the same. Tests hold both to contract.ts's table.
 */
export const STARTUP_REPLIES: Partial<Record<ChannelName, z.ZodType>> = {
  listForks: replyEnvelope(withParser(ListForksResponseSchema, listForksResponseParser as (input: unknown) => z.output<typeof ListForksResponseSchema>)),
};
