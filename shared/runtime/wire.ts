import { z } from 'zod';

/**
 * What the provider gateway saw of one request (issue 28): written by the gateway on the host, one
 * JSON line per request in the attempt's `wire.jsonl`, never by anything inside the sandbox. Models
 * are as the request body and the provider's own answer named them (bounded, printable); tokens are
 * the provider's usage report, null when it gave none.
 */
export const WireOutcomeSchema = z.enum([
  /** The provider answered and, for a stream, the stream reached its completion event. */
  'completed',
  /** The provider answered with an HTTP error status. */
  'upstream_error',
  /** The connection to the provider failed, or the answer ended before its completion event. */
  'aborted',
  /** The gateway refused the request; it never reached the provider (see `refusal`). */
  'refused',
]);
export type WireOutcome = z.infer<typeof WireOutcomeSchema>;

export const WireRefusalSchema = z.enum([
  'route_not_allowed',
  /** A query string the API's routes do not take (a Gemini `key`, or a field mask that would hide the usage). */
  'query_not_allowed',
  'placeholder_mismatch',
  'body_too_large',
  'body_unparsable',
  'body_encoding_unsupported',
  'model_not_allowed',
  'server_tool_refused',
  'mcp_servers_refused',
  'budget_exceeded',
  /** With a token budget, a streamed request that does not ask the provider for its usage (Chat Completions' `stream_options.include_usage`). */
  'usage_not_requested',
  'credential_unavailable',
]);
export type WireRefusal = z.infer<typeof WireRefusalSchema>;

const ModelTextSchema = z.string().max(128);

export const WireExchangeSchema = z.strictObject({
  /** When the request's head reached the gateway. */
  at: z.iso.datetime(),
  method: z.string().max(16),
  /** The request path without its query, as the gateway's route table names it. */
  path: z.string().max(259),
  outcome: WireOutcomeSchema,
  refusal: WireRefusalSchema.nullable(),
  /** The provider's HTTP status; null when it never answered. */
  status: z.int().nullable(),
  requested_model: ModelTextSchema.nullable(),
  /** The model the provider's answer named (a stream's start or completion event); null when it named none. */
  served_model: ModelTextSchema.nullable(),
  input_tokens: z.int().nonnegative().nullable(),
  output_tokens: z.int().nonnegative().nullable(),
  /** From the request head to the provider's first response byte; null when none came. */
  first_byte_ms: z.int().nonnegative().nullable(),
  duration_ms: z.int().nonnegative(),
});
export type WireExchange = z.infer<typeof WireExchangeSchema>;

/**
 * One attempt's wire facts as its signed execution receipt binds them: the totals of its
 * `wire.jsonl`. Models are sorted, distinct sets; tokens are sums over exchanges that reported them,
 * with `usage_complete` false when a completed exchange, or one the provider answered 2xx that
 * ended before its usage (aborted), reported none (a sum is then a lower bound). Computed when the
 * attempt is collected: a receipt keeps the value of its day.
 */
export const WireFactsSchema = z.strictObject({
  requests: z.int().nonnegative(),
  completed: z.int().nonnegative(),
  refused: z.int().nonnegative(),
  upstream_errors: z.int().nonnegative(),
  aborted: z.int().nonnegative(),
  requested_models: z.array(ModelTextSchema),
  served_models: z.array(ModelTextSchema),
  input_tokens: z.int().nonnegative(),
  output_tokens: z.int().nonnegative(),
  usage_complete: z.boolean(),
  /** The gateway refused a request because the contract's token budget was spent. */
  budget_exceeded: z.boolean(),
  /** The gateway could not obtain or refresh the provider credential for a request. */
  credential_failed: z.boolean(),
});
export type WireFacts = z.infer<typeof WireFactsSchema>;
