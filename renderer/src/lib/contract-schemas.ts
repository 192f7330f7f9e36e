import { appReplySchema } from '../../../shared/ipc/app-channels';
import { IpcEventSchema, replySchema } from '../../../shared/ipc/contract';

/** What the client parses with, loaded on its own (client.ts says why). */
export { appReplySchema, IpcEventSchema, replySchema };

export interface ContractSchemas {
  readonly appReplySchema: typeof appReplySchema;
  readonly IpcEventSchema: typeof IpcEventSchema;
  readonly replySchema: typeof replySchema;
}
