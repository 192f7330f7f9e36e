/**
 * Issue 28: why a collected branch failed, with the wire's word. A token budget the gateway
 * enforced ends the branch BUDGET_EXCEEDED, and a credential it could not get RUNTIME_AUTH_FAILED,
 * over whatever the runtime printed (it only saw a refused request) and over a passing verifier
 * (collection asks the verifier only when this is null); containment and STOP still come first.
 */
import { describe, expect, it } from 'vitest';
import { failureOf, type RunEnd } from '../../../main/orchestrator/branch-failure';
import type { ExitedStatus } from '../../../main/runtimes/supervisor/run-status';
import { UNKNOWN_TELEMETRY, type ParsedRuntimeOutput } from '../../../shared/runtime/telemetry';
import type { WireExchange } from '../../../shared/runtime/wire';
import { wireFactsOf } from '../../../shared/runtime/wire-facts';

const exited = (extra: Partial<ExitedStatus> = {}): RunEnd => ({ kind: 'exited', status: { exit_code: 0, signal: null, timed_out: false, stopped: false, spawn_error: null, ...extra } as ExitedStatus });
const parsed = (failure: ParsedRuntimeOutput['failure_code']): ParsedRuntimeOutput => ({ succeeded: failure === null, failure_code: failure, telemetry: UNKNOWN_TELEMETRY, session_ref: null, warnings: [] });
const refused = (refusal: WireExchange['refusal']) =>
  wireFactsOf([
    {
      at: '2026-12-05T22:00:00.000Z',
      method: 'POST',
      path: '/v1/messages',
      outcome: 'refused',
      refusal,
      status: null,
      requested_model: 'claude-sonnet-4-5',
      served_model: null,
      input_tokens: null,
      output_tokens: null,
      first_byte_ms: null,
      duration_ms: 1,
    },
  ]);

describe('failureOf with wire facts', () => {
  it('a spent token budget is BUDGET_EXCEEDED, even where the runtime said it succeeded or reported an API error', () => {
    expect(failureOf(exited(), [], parsed(null), refused('budget_exceeded'))).toBe('BUDGET_EXCEEDED');
    expect(failureOf(exited({ exit_code: 1 }), [], parsed('RUNTIME_API_ERROR'), refused('budget_exceeded'))).toBe('BUDGET_EXCEEDED');
  });

  it('a credential the gateway could not obtain is RUNTIME_AUTH_FAILED', () => {
    expect(failureOf(exited({ exit_code: 1 }), [], parsed('RUNTIME_API_ERROR'), refused('credential_unavailable'))).toBe('RUNTIME_AUTH_FAILED');
  });

  it("other refusals and no wire leave the runtime's word; containment and STOP come first", () => {
    expect(failureOf(exited({ exit_code: 1 }), [], parsed('RUNTIME_API_ERROR'), refused('model_not_allowed'))).toBe('RUNTIME_API_ERROR');
    expect(failureOf(exited(), [], parsed(null), null)).toBeNull();
    expect(failureOf(exited({ stopped: true }), [], parsed(null), refused('budget_exceeded'))).toBe('STOPPED_BY_OPERATOR');
    expect(failureOf(exited(), [{ kind: 'ref_changed' } as never], parsed(null), refused('budget_exceeded'))).toBe('WORKTREE_CONTAINMENT_VIOLATION');
  });
});
