import { z } from 'zod';

/**
 * What a branch's egress refused, as `fork status` and the Fork view show it (issue 28): the
 * recorded denials of its current attempt, alike ones counted once. The reason is the recorder's
 * code (the host bridge's and the provider gateway's), shown as it comes. Local, unsigned facts:
 * never in a receipt's signed part, a replay or an attestation.
 */
export const EgressRefusalSchema = z.strictObject({
  reason: z.string().max(64),
  host: z.string().max(300).nullable(),
  port: z.int().nullable(),
  method: z.string().max(32).nullable(),
  path: z.string().max(300).nullable(),
  count: z.int().min(1),
});
export type EgressRefusal = z.infer<typeof EgressRefusalSchema>;

/** At most this many distinct refusals are shown per branch; the recorder keeps up to a thousand. */
export const MAX_SHOWN_REFUSALS = 20;

/** One line per refusal: `host_not_allowed elsewhere.example:443 (x3)`; what the agent asked for is shown printable only. */
export function describeRefusal(r: EgressRefusal): string {
  const where = `${r.host ?? '?'}${r.port === null ? '' : `:${r.port}`}${r.path ?? ''}`;
  return printable(`${r.reason}${r.method === null ? '' : ` ${r.method}`} ${where}${r.count > 1 ? ` (x${r.count})` : ''}`);
}

const printable = (text: string): string => text.replace(/[^\x20-\x7e]/g, '?');
