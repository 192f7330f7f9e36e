/**
 * Issue 28: the provider gateway's wire is model proof's trusted source. Served ≠ requested fails
 * whatever the runtime printed (a rollout rewritten inside the branch no longer passes), several
 * served models fail, no served model shows the runtime's telemetry as the secondary source but at
 * most unknown, and wire and telemetry that disagree raise enumerated warnings. Missing proof never passes.
 */
import { describe, expect, it } from 'vitest';
import { modelProof, ModelProofSchema } from '../../../shared/fork/model-proof';
import { TelemetrySchema, UNKNOWN_TELEMETRY, type Telemetry } from '../../../shared/runtime/telemetry';
import type { WireExchange, WireFacts } from '../../../shared/runtime/wire';
import { wireFactsOf, wireFailureOf, wireTelemetryWarnings } from '../../../shared/runtime/wire-facts';
import { wireExchange } from '../../support/wire-exchange';

const runtime = (observed: string | null, tokens: Partial<Telemetry> = {}): Telemetry =>
  TelemetrySchema.parse({ ...UNKNOWN_TELEMETRY, observed_model: observed, observed_model_source: observed === null ? null : 'codex_rollout_turn_context', ...tokens });
const REQUESTED: { model: string | null; local_provider: string | null } = { model: 'claude-sonnet-4-5', local_provider: null };

describe('wireFactsOf', () => {
  it('totals an attempt: counts by outcome, sorted distinct models, token sums, budget and credential refusals', () => {
    const facts = wireFactsOf([
      wireExchange(),
      wireExchange({ requested_model: 'claude-haiku-4-5', served_model: 'claude-haiku-4-5', input_tokens: 7, output_tokens: 3 }),
      wireExchange({ outcome: 'upstream_error', status: 529, served_model: null, input_tokens: null, output_tokens: null }),
      wireExchange({ outcome: 'refused', refusal: 'budget_exceeded', status: null, served_model: null, input_tokens: null, output_tokens: null, first_byte_ms: null }),
      wireExchange({ outcome: 'aborted', status: 200, served_model: 'claude-sonnet-4-5', input_tokens: 5, output_tokens: 0 }),
    ]);
    expect(facts).toEqual({
      requests: 5,
      completed: 2,
      refused: 1,
      upstream_errors: 1,
      aborted: 1,
      requested_models: ['claude-haiku-4-5', 'claude-sonnet-4-5'],
      served_models: ['claude-haiku-4-5', 'claude-sonnet-4-5'],
      input_tokens: 112,
      output_tokens: 23,
      usage_complete: true,
      budget_exceeded: true,
      credential_failed: false,
    });
  });

  it('says a sum is a lower bound when a completed answer reported no usage; zero exchanges are all zero', () => {
    expect(wireFactsOf([wireExchange(), wireExchange({ output_tokens: null })]).usage_complete).toBe(false);
    // Review 31: an answer the provider gave (2xx) but that ended before its usage may have been billed in full.
    expect(wireFactsOf([wireExchange(), wireExchange({ outcome: 'aborted', status: 200, input_tokens: null, output_tokens: null })]).usage_complete).toBe(false);
    expect(wireFactsOf([wireExchange(), wireExchange({ outcome: 'aborted', status: null, served_model: null, input_tokens: null, output_tokens: null })]).usage_complete).toBe(true);
    expect(wireFactsOf([wireExchange(), wireExchange({ outcome: 'upstream_error', status: 529, input_tokens: null, output_tokens: null })]).usage_complete).toBe(true);
    expect(wireFactsOf([])).toMatchObject({ requests: 0, served_models: [], input_tokens: 0, usage_complete: true, budget_exceeded: false });
  });

  it('maps the wire to failure codes: budget first, then the credential; nothing without a wire', () => {
    const facts = (refusals: WireExchange['refusal'][]) => wireFactsOf(refusals.map((refusal) => wireExchange({ outcome: 'refused', refusal })));
    expect(wireFailureOf(facts(['credential_unavailable']))).toBe('RUNTIME_AUTH_FAILED');
    expect(wireFailureOf(facts(['credential_unavailable', 'budget_exceeded']))).toBe('BUDGET_EXCEEDED');
    expect(wireFailureOf(facts(['model_not_allowed']))).toBeNull();
    expect(wireFailureOf(null)).toBeNull();
  });
});

describe('model proof from the wire', () => {
  const proof = (wire: WireFacts, telemetry: Telemetry | null = runtime(null), requested = REQUESTED) => ModelProofSchema.parse(modelProof(requested, telemetry, wire));

  it('passes on one served model that is the one requested, whatever else; the source is the wire', () => {
    expect(proof(wireFactsOf([wireExchange(), wireExchange()]))).toEqual({
      requested_model: 'claude-sonnet-4-5',
      requested_provider: null,
      observed_model: 'claude-sonnet-4-5',
      status: 'passed',
      observed_model_source: 'gateway_wire',
      warnings: [],
    });
  });

  it('fails when the provider served another model than requested, even when the runtime claims the requested one', () => {
    const wire = wireFactsOf([wireExchange({ served_model: 'claude-haiku-4-5' })]);
    // The rollout/stdout inside the branch says what was asked; the wire says what answered.
    const p = proof(wire, runtime('claude-sonnet-4-5'));
    expect(p).toMatchObject({ observed_model: 'claude-haiku-4-5', status: 'failed', observed_model_source: 'gateway_wire', warnings: ['wire_telemetry_model_mismatch'] });
  });

  it('fails on several served models, or on a served model the profile does not name', () => {
    expect(proof(wireFactsOf([wireExchange(), wireExchange({ requested_model: 'claude-haiku-4-5', served_model: 'claude-haiku-4-5' })])).status).toBe('failed');
    expect(proof(wireFactsOf([wireExchange({ requested_model: 'claude-opus-4-1', served_model: 'claude-opus-4-1' })])).status).toBe('failed');
    // A legacy profile (default) still needs the served model to be the one its requests named.
    expect(proof(wireFactsOf([wireExchange({ served_model: 'claude-haiku-4-5' })]), null, { model: null, local_provider: null }).status).toBe('failed');
    expect(proof(wireFactsOf([wireExchange()]), null, { model: null, local_provider: null }).status).toBe('passed');
    // A request for another model that the gateway refused was never served: the proof stands on what was.
    const refusedOther = wireExchange({ outcome: 'refused', refusal: 'model_not_allowed', status: null, requested_model: 'claude-opus-4-1', served_model: null, input_tokens: null, output_tokens: null });
    expect(proof(wireFactsOf([wireExchange(), refusedOther])).status).toBe('passed');
  });

  it('shows the runtime telemetry, marked as its source, when the wire saw no served model, but never passes on it; missing stays unknown', () => {
    const none = wireFactsOf([wireExchange({ served_model: null })]);
    // Written inside the sandbox (a rollout, stdout, a session file): the agent could have written it.
    expect(proof(none, runtime('claude-sonnet-4-5'))).toMatchObject({ status: 'unknown', observed_model: 'claude-sonnet-4-5', observed_model_source: 'codex_rollout_turn_context' });
    expect(proof(none, runtime('claude-sonnet-4-5'), { model: null, local_provider: null })).toMatchObject({ status: 'unknown', observed_model: 'claude-sonnet-4-5' });
    // A claim of another model than the profile's still fails.
    expect(proof(none, runtime('claude-opus-4-1'))).toMatchObject({ status: 'failed', observed_model: 'claude-opus-4-1' });
    // Review 31: every request failed upstream, the qwen session file in the runtime home claims the model.
    const failedUpstream = wireFactsOf([wireExchange({ outcome: 'upstream_error', status: 500, requested_model: 'qwen3-coder', served_model: null, input_tokens: null, output_tokens: null })]);
    const qwen = TelemetrySchema.parse({ ...UNKNOWN_TELEMETRY, observed_model: 'qwen3-coder', observed_model_source: 'qwen_session_api_response' });
    expect(proof(failedUpstream, qwen, { model: 'qwen3-coder', local_provider: null })).toMatchObject({ status: 'unknown', observed_model: 'qwen3-coder', observed_model_source: 'qwen_session_api_response' });
    expect(proof(none, runtime(null))).toMatchObject({ status: 'unknown', observed_model: null, observed_model_source: null });
    expect(proof(wireFactsOf([]), null)).toMatchObject({ status: 'unknown', observed_model: null });
  });

  it('keeps the earlier shape exactly without a wire', () => {
    expect(modelProof(REQUESTED, runtime('claude-sonnet-4-5'))).toEqual({ requested_model: 'claude-sonnet-4-5', requested_provider: null, observed_model: 'claude-sonnet-4-5', status: 'passed' });
  });
});

describe('wire and telemetry disagreement', () => {
  it('warns on a different model or different token totals, never on a missing fact or an incomplete sum', () => {
    const wire = wireFactsOf([wireExchange()]);
    expect(wireTelemetryWarnings(wire, runtime('claude-sonnet-4-5', { input_tokens: 100, output_tokens: 20 }))).toEqual([]);
    expect(wireTelemetryWarnings(wire, runtime('claude-opus-4-1', { input_tokens: 100, output_tokens: 21 }))).toEqual(['wire_telemetry_model_mismatch', 'wire_telemetry_tokens_mismatch']);
    expect(wireTelemetryWarnings(wire, runtime(null))).toEqual([]);
    expect(wireTelemetryWarnings(wireFactsOf([wireExchange({ output_tokens: null })]), runtime(null, { input_tokens: 1, output_tokens: 1 }))).toEqual([]);
    expect(wireTelemetryWarnings(null, runtime('x'))).toEqual([]);
  });
});
