import { z } from 'zod';
import type { FailureCode, Telemetry } from './telemetry';
import type { WireExchange, WireFacts } from './wire';

/**
 * One attempt's wire facts from its exchanges (issue 28): counts by outcome, the distinct models
 * asked for and served, and token sums over the exchanges that reported usage.
 */
export function wireFactsOf(exchanges: readonly WireExchange[]): WireFacts {
  const count = (outcome: WireExchange['outcome']): number => exchanges.filter((e) => e.outcome === outcome).length;
  const models = (pick: (e: WireExchange) => string | null): string[] => [...new Set(exchanges.map(pick).filter((m) => m !== null))].sort();
  const sum = (pick: (e: WireExchange) => number | null): number => exchanges.reduce((total, e) => total + (pick(e) ?? 0), 0);
  return {
    requests: exchanges.length,
    completed: count('completed'),
    refused: count('refused'),
    upstream_errors: count('upstream_error'),
    aborted: count('aborted'),
    requested_models: models((e) => e.requested_model),
    served_models: models((e) => e.served_model),
    input_tokens: sum((e) => e.input_tokens),
    output_tokens: sum((e) => e.output_tokens),
    // An answer cut short (aborted) may have been billed in full: only its reported usage makes the sums whole.
    usage_complete: exchanges.every((e) => (e.outcome !== 'completed' && !answered(e)) || (e.input_tokens !== null && e.output_tokens !== null)),
    budget_exceeded: exchanges.some((e) => e.refusal === 'budget_exceeded'),
    credential_failed: exchanges.some((e) => e.refusal === 'credential_unavailable'),
  };
}

/** The provider answered with a success status (whatever became of the answer after). */
function answered(exchange: WireExchange): boolean {
  return exchange.status !== null && exchange.status >= 200 && exchange.status < 300;
}

/**
 * The failure the wire itself proves, or null. It outranks what the runtime printed: a CLI refused
 * by the gateway reports some API error, but the gateway knows why it refused.
 */
export function wireFailureOf(wire: WireFacts | null): Extract<FailureCode, 'BUDGET_EXCEEDED' | 'RUNTIME_AUTH_FAILED'> | null {
  if (wire === null) return null;
  if (wire.budget_exceeded) return 'BUDGET_EXCEEDED';
  if (wire.credential_failed) return 'RUNTIME_AUTH_FAILED';
  return null;
}

/** Where the wire and the runtime's own telemetry disagree: enumerated, never free text. */
export const WIRE_WARNINGS = ['wire_telemetry_model_mismatch', 'wire_telemetry_tokens_mismatch'] as const;
export const WireWarningSchema = z.enum(WIRE_WARNINGS);
export type WireWarning = z.infer<typeof WireWarningSchema>;

/**
 * The wire's word against the runtime's (either may be missing; only a disagreement between two
 * present facts is a warning). Tokens are compared only when the wire's sums are complete: a lower
 * bound is not a disagreement.
 */
export function wireTelemetryWarnings(wire: WireFacts | null, telemetry: Telemetry): WireWarning[] {
  if (wire === null) return [];
  const warnings: WireWarning[] = [];
  const reported = telemetry.observed_model_source === null ? null : telemetry.observed_model;
  if (reported !== null && wire.served_models.length > 0 && (wire.served_models.length !== 1 || wire.served_models[0] !== reported)) {
    warnings.push('wire_telemetry_model_mismatch');
  }
  const differs = (wired: number, printed: number | null): boolean => printed !== null && printed !== wired;
  if (wire.usage_complete && wire.completed > 0 && (differs(wire.input_tokens, telemetry.input_tokens) || differs(wire.output_tokens, telemetry.output_tokens))) {
    warnings.push('wire_telemetry_tokens_mismatch');
  }
  return warnings;
}
