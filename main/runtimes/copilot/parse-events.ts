import { z } from 'zod';
import type { RuntimeActivity } from '../../../shared/fork/events';
import { UNKNOWN_TELEMETRY, type FailureCode, type ParsedRuntimeOutput, type RuntimeWarning } from '../../../shared/runtime/telemetry';
import type { FinishedRun } from '../adapter-contract/runtime-adapter';
import { isRecord, parseTypedEvent } from '../output-reading/json-events';

/** What Copilot's `--output-format json` stdout says. Its tokens are not in it (session-usage.ts). */
export interface CopilotEventsSummary {
  readonly output: ParsedRuntimeOutput;
  /** The `result` line's sessionId, validated as a UUID (it names the session-state folder); else null. */
  readonly sessionId: string | null;
  /** Whether stdout held any event at all (an empty one has no tokens to miss). */
  readonly sawEvent: boolean;
}

interface Tally {
  result: { sessionId: unknown; exitCode: unknown } | null;
  sessionError: { errorType: unknown; statusCode: unknown } | null;
  deniedTools: boolean;
  failedModelCalls: boolean;
}

/**
 * Reads Copilot CLI 1.0.102's JSONL (recordings/copilot): `session.*`, `assistant.*`, `model.*`,
 * `tool.*` events and a last `result{sessionId, exitCode}`. Blank lines are ignored and unknown
 * event types skipped; any unparsable line makes the run RUNTIME_OUTPUT_UNPARSABLE, except a last
 * line cut mid-write after the `result`, which cannot change the outcome it reported.
 *
 * The events' `model` is never an observation: it is COPILOT_MODEL / `--model` echoed, even when the
 * provider served another (model_served_differs), so it is not reported; the model is proven by the
 * gateway's wire or stays unknown. A signal decides a cancel, never `result.exitCode`: a SIGINT can
 * end with `result{exitCode:0}` (cancel_sigint). Never throws.
 */
export function parseCopilotEvents(run: FinishedRun): CopilotEventsSummary {
  const warnings: RuntimeWarning[] = run.stderr.trim() === '' ? [] : ['stderr_output'];
  const lines = run.stdout.split('\n');
  const lastIndex = lines.length - 1;
  const tally: Tally = { result: null, sessionError: null, deniedTools: false, failedModelCalls: false };
  let sawEvent = false;
  let unparsable = false;
  let cutTail = false;

  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const event = parseTypedEvent(line);
    if (event === null) {
      if (index === lastIndex && tally.result !== null) cutTail = true;
      else unparsable = true;
      return;
    }
    sawEvent = true;
    record(event, tally);
  });

  const parsedId = z.uuid().safeParse(tally.result?.sessionId);
  const sessionId = parsedId.success ? parsedId.data : null;
  if (tally.deniedTools) warnings.push('permission_denials');
  if (tally.failedModelCalls || cutTail) warnings.push('nonfatal_runtime_errors');
  if (sawEvent) warnings.push('observed_model_missing');

  const failure = failureCode(run, unparsable, tally);
  return {
    sessionId,
    sawEvent,
    output: { succeeded: failure === null, failure_code: failure, telemetry: UNKNOWN_TELEMETRY, session_ref: sessionId, warnings },
  };
}

function failureCode(run: FinishedRun, unparsable: boolean, tally: Tally): FailureCode | null {
  // A killed run did not finish, whatever it printed while dying.
  if (run.signal !== null) return 'RUNTIME_EXITED_NONZERO';
  if (unparsable) return 'RUNTIME_OUTPUT_UNPARSABLE';
  if (tally.sessionError !== null) {
    const { errorType, statusCode } = tally.sessionError;
    return errorType === 'authentication' || statusCode === 401 || statusCode === 403 ? 'RUNTIME_AUTH_FAILED' : 'RUNTIME_API_ERROR';
  }
  if (run.exitCode !== 0) return 'RUNTIME_EXITED_NONZERO';
  // Exit 0 without a result line: the runtime never reported an outcome Citadel could read.
  if (tally.result === null) return 'RUNTIME_OUTPUT_UNPARSABLE';
  return tally.result.exitCode === 0 ? null : 'RUNTIME_EXITED_NONZERO';
}

function record(event: Record<string, unknown>, tally: Tally): void {
  const data = isRecord(event.data) ? event.data : {};
  switch (event.type) {
    case 'result':
      tally.result = { sessionId: event.sessionId, exitCode: event.exitCode };
      return;
    case 'session.error':
      tally.sessionError = { errorType: data.errorType, statusCode: data.statusCode };
      return;
    case 'model.call_failure':
      // Retried requests are reported even when a later attempt succeeds.
      tally.failedModelCalls = true;
      return;
    case 'tool.execution_complete':
      if (data.success === false && isRecord(data.error) && data.error.code === 'denied') tally.deniedTools = true;
      return;
    default:
      return;
  }
}

/**
 * One line of Copilot's JSONL as it arrives (issue 14), for the live view only (the outcome is read
 * by parseCopilotEvents at exit). A shell command is shown on one line and whole: the live monitor
 * scans it for secrets before it cuts it. File contents, messages and tool output are never copied.
 */
export function copilotActivity(line: string): RuntimeActivity | null {
  const event = parseTypedEvent(line.trim());
  if (event === null) return null;
  const data = isRecord(event.data) ? event.data : {};
  switch (event.type) {
    case 'assistant.turn_start':
      return { kind: 'turn_started', summary: 'turn started' };
    case 'assistant.turn_end':
      return { kind: 'turn_completed', summary: 'turn completed' };
    case 'assistant.message':
      return { kind: 'item_completed', summary: 'message from the model' };
    case 'tool.execution_start':
      return toolStarted(data);
    case 'tool.execution_complete':
      if (data.success === true) return { kind: 'item_completed', summary: 'tool call completed' };
      return { kind: 'error', summary: isRecord(data.error) && data.error.code === 'denied' ? 'tool call denied' : 'tool call failed' };
    case 'model.call_failure':
      return { kind: 'error', summary: typeof data.statusCode === 'number' ? `model request failed (HTTP ${data.statusCode})` : 'model request failed' };
    case 'session.error':
      return { kind: 'error', summary: 'the runtime reported an error' };
    case 'abort':
      return { kind: 'turn_failed', summary: 'run aborted' };
    case 'result':
      return { kind: 'session', summary: typeof event.exitCode === 'number' ? `session ended (exit ${event.exitCode})` : 'session ended' };
    default:
      return null;
  }
}

function toolStarted(data: Record<string, unknown>): RuntimeActivity {
  const args = isRecord(data.arguments) ? data.arguments : {};
  if (data.toolName === 'bash' && typeof args.command === 'string') return { kind: 'command_started', summary: `running ${args.command.replace(/\s+/g, ' ').trim()}` };
  const tool = typeof data.toolName === 'string' && /^[a-z_]{1,40}$/.test(data.toolName) ? data.toolName : 'a tool';
  return { kind: 'item_started', summary: `using ${tool}` };
}
