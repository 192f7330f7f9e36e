import type { FailureCode, ParsedRuntimeOutput } from '../../shared/runtime/telemetry';
import type { WireFacts } from '../../shared/runtime/wire';
import { wireFailureOf } from '../../shared/runtime/wire-facts';
import type { ContainmentViolation } from '../git/containment';
import type { ExitedStatus } from '../runtimes/supervisor/run-status';

export type RunEnd =
  | { kind: 'exited'; status: ExitedStatus }
  | { kind: 'not_started'; failure: FailureCode }
  /** STOP ended a run whose supervisor left no exited record (it was gone, hung, or killed by STOP). */
  | { kind: 'stopped_unrecorded'; started_at: string };

/**
 * The wire's budget and credential failures come before the runtime's own word (which only saw a
 * refused request) and before the verifier: a branch past its token budget fails even when what it
 * left passes. Containment and the operator's stop still come first.
 */
export function failureOf(end: RunEnd, violations: readonly ContainmentViolation[], parsed: ParsedRuntimeOutput | null, wire: WireFacts | null): FailureCode | null {
  if (end.kind === 'not_started') return end.failure;
  if (violations.length > 0) return 'WORKTREE_CONTAINMENT_VIOLATION';
  if (end.kind === 'stopped_unrecorded' || end.status.stopped) return 'STOPPED_BY_OPERATOR';
  if (end.status.timed_out) return 'BUDGET_EXCEEDED';
  if (end.status.spawn_error !== null) return 'RUNTIME_NOT_FOUND';
  return wireFailureOf(wire) ?? parsed?.failure_code ?? null;
}
