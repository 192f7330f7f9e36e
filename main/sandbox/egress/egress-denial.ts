import { z } from 'zod';
import { WireRefusalSchema } from '../../../shared/runtime/wire';

export const EgressDenialReasonSchema = z.enum([
  'method_not_connect',
  'malformed_request',
  'ip_literal',
  'host_not_allowed',
  'port_not_allowed',
  'head_too_large',
  'head_timeout',
  /** A loopback provider's request that is not one of its routes (e.g. Ollama's `POST /api/pull`). */
  'path_not_allowed',
  /** A loopback provider's protocol upgrade (WebSocket): no local provider's runtime uses one. */
  'upgrade_not_allowed',
  // The provider gateway's refusals (issue 28), named as its wire exchanges name them; a route it refuses is path_not_allowed.
  ...WireRefusalSchema.exclude(['route_not_allowed']).options,
]);
export type EgressDenialReason = z.infer<typeof EgressDenialReasonSchema>;

/** A recorded request path is cut to this many characters: enough to say what was asked for. */
export const MAX_DENIED_PATH_CHARS = 256;

/**
 * One request the host bridge refused; host and port are null when the request never named them
 * readably. A loopback provider's refusal also says the method and path (never the query or body,
 * which may hold what the agent was carrying): printable ASCII only, bounded, see deniedRequest.
 */
export const EgressDenialSchema = z.strictObject({
  host: z.string().nullable(),
  port: z.int().nullable(),
  reason: EgressDenialReasonSchema,
  method: z.string().max(32).optional(),
  path: z.string().max(MAX_DENIED_PATH_CHARS + 3).optional(),
});
export type EgressDenial = z.infer<typeof EgressDenialSchema>;
