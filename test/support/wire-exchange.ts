import type { WireExchange } from '../../shared/runtime/wire';

/** One completed Claude exchange as the gateway records it (100 in, 20 out), with `extra` over it. */
export function wireExchange(extra: Partial<WireExchange> = {}): WireExchange {
  return {
    at: '2026-12-05T22:00:00.000Z',
    method: 'POST',
    path: '/v1/messages',
    outcome: 'completed',
    refusal: null,
    status: 200,
    requested_model: 'claude-sonnet-4-5',
    served_model: 'claude-sonnet-4-5',
    input_tokens: 100,
    output_tokens: 20,
    first_byte_ms: 5,
    duration_ms: 40,
    ...extra,
  };
}
