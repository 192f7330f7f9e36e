import { z } from 'zod';
import { CitadelErrorDataSchema } from '../errors';

/** How every channel's answer crosses: `{ok:true,value}` with the channel's response, or its typed error. */
export function replyEnvelope<T extends z.ZodType>(response: T) {
  return z.discriminatedUnion('ok', [z.strictObject({ ok: z.literal(true), value: response }), z.strictObject({ ok: z.literal(false), error: CitadelErrorDataSchema })]);
}
