import { z } from 'zod';
import type { FinishedRun } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import { UNKNOWN_TELEMETRY, type FailureCode, type ParsedRuntimeOutput, type RuntimeWarning } from '../../../shared/runtime/telemetry';

/** What a `{"kind":"result","ok":false,"error":…}` line means. */
const FAILURES: Readonly<Record<string, FailureCode>> = {
  auth: 'RUNTIME_AUTH_FAILED',
  api: 'RUNTIME_API_ERROR',
  unavailable: 'RUNTIME_PROVIDER_UNAVAILABLE',
};

/**
 * Reads the echo runtime's JSONL stdout: `{"kind":"session","id":<uuid>}`, any other kinds (ignored),
 * then one `{"kind":"result","ok":true,"usage":{input_tokens,output_tokens}}` or `{"kind":"result",
 * "ok":false,"error":"auth"|"api"|"unavailable"}`. It names no model, so the model stays unknown.
 * Never throws.
 */
export function parseEchoOutput(run: FinishedRun): ParsedRuntimeOutput {
  const warnings: RuntimeWarning[] = run.stderr.trim() === '' ? [] : ['stderr_output'];
  const events = run.stdout.split('\n').filter((line) => line.trim() !== '').map(parseLine);
  const unreadable = events.includes(null);
  const session = events.find((event) => event?.kind === 'session');
  const result = events.findLast((event) => event?.kind === 'result') ?? null;

  const usage = result?.ok === true && isRecord(result.usage) ? result.usage : {};
  const telemetry = { ...UNKNOWN_TELEMETRY, input_tokens: count(usage.input_tokens), output_tokens: count(usage.output_tokens) };
  if (telemetry.input_tokens === null || telemetry.output_tokens === null) warnings.push('tokens_missing');
  warnings.push('observed_model_missing');

  const sessionId = z.uuid().safeParse(session?.id);
  const failure = failureOf(run, result, unreadable);
  return { succeeded: failure === null, failure_code: failure, telemetry, session_ref: sessionId.success ? sessionId.data : null, warnings };
}

function failureOf(run: FinishedRun, result: Record<string, unknown> | null, unreadable: boolean): FailureCode | null {
  // Killed: the run did not finish, whatever it printed (the conformance rule for cancelled runs).
  if (run.signal !== null) return 'RUNTIME_EXITED_NONZERO';
  if (unreadable) return 'RUNTIME_OUTPUT_UNPARSABLE';
  if (result?.ok === false) return typeof result.error === 'string' && Object.hasOwn(FAILURES, result.error) ? FAILURES[result.error]! : 'RUNTIME_API_ERROR';
  if (run.exitCode !== 0) return 'RUNTIME_EXITED_NONZERO';
  return result?.ok === true ? null : 'RUNTIME_OUTPUT_UNPARSABLE';
}

function parseLine(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) && typeof value.kind === 'string' ? value : null;
  } catch {
    return null;
  }
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
