import { z } from 'zod';

export const EgressDenialReasonSchema = z.enum([
  'method_not_connect',
  'malformed_request',
  'ip_literal',
  'host_not_allowed',
  'port_not_allowed',
  'head_too_large',
  'head_timeout',
]);
export type EgressDenialReason = z.infer<typeof EgressDenialReasonSchema>;

/** One connection the host bridge refused; host and port are null when the request never named them readably. */
export const EgressDenialSchema = z.strictObject({
  host: z.string().nullable(),
  port: z.int().nullable(),
  reason: EgressDenialReasonSchema,
});
export type EgressDenial = z.infer<typeof EgressDenialSchema>;
