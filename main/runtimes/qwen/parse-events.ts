import { z } from 'zod';
import type { RuntimeActivity } from '../../../shared/fork/events';
import { UNKNOWN_TELEMETRY, type FailureCode, type ParsedRuntimeOutput, type RuntimeWarning } from '../../../shared/runtime/telemetry';
import type { FinishedRun } from '../adapter-contract/runtime-adapter';
import { isRecord } from '../output-reading/json-events';

/** What Qwen Code's stream-json stdout says. The served model is never in it: that comes from the session file. */
export interface QwenEventsSummary {
  readonly output: ParsedRuntimeOutput;
  /** The run's one session_id, validated as a UUID (it names the session file); else null. */
  readonly sessionId: string | null;
}

/** A provider's refusal of the key, as Qwen Code 0.24.4 words it in its error result (recordings/qwen/err401: `[API Error: 401 …]`). */
const AUTH_FAILURE_MESSAGE = /\bAPI Error: 40[13]\b/;

type EventRecord = Record<string, unknown>;

/**
 * Reads Qwen Code's `--output-format stream-json` stdout (recordings/qwen), Claude-like JSONL:
 * `system{subtype:"init", session_id, model}`, `stream_event`, `assistant{message{content, usage}}`,
 * `user{tool_result}` and one final `result{is_error, usage, error?}`. The outcome is the result's and
 * the exit status's; tokens are `result.usage`, which counts every request of the run, the
 * managed-memory extraction included (error results report 0/0: placeholders, so unknown).
 * `system.model` and `assistant.message.model` only repeat the requested model, so they are not an
 * observation. Any unparsable line makes the run RUNTIME_OUTPUT_UNPARSABLE, except a final line cut
 * off mid-write after the result, which cannot change it. Never throws.
 */
export function parseQwenEvents(run: FinishedRun): QwenEventsSummary {
  const warnings: RuntimeWarning[] = run.stderr.trim() === '' ? [] : ['stderr_output'];
  const lines = run.stdout.split('\n');
  const sessionIds = new Set<unknown>();
  const results: EventRecord[] = [];
  let sawEvent = false;
  let unparsable = false;
  let cutTail = false;

  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const event = parseEvent(line);
    if (event === null) {
      if (index === lines.length - 1 && results.length > 0) cutTail = true;
      else unparsable = true;
      return;
    }
    sawEvent = true;
    if (event.session_id !== undefined) sessionIds.add(event.session_id);
    if (event.type === 'result' && typeof event.is_error === 'boolean') results.push(event);
  });

  const only = sessionIds.size === 1 ? z.uuid().safeParse([...sessionIds][0]) : null;
  const sessionId = only?.success === true ? only.data : null;
  const result = results.length === 1 ? results[0]! : null;
  const tokens = result === null || result.is_error === true ? null : usageOf(result.usage);
  if (cutTail) warnings.push('nonfatal_runtime_errors');
  if (sawEvent && tokens === null) warnings.push('tokens_missing');
  if (sawEvent && sessionId === null) warnings.push('observed_model_missing');
  if (result !== null && Array.isArray(result.permission_denials) && result.permission_denials.length > 0) warnings.push('permission_denials');

  const failure = failureCode(run, { unparsable, results, result });
  return {
    sessionId,
    output: {
      succeeded: failure === null,
      failure_code: failure,
      telemetry: { ...UNKNOWN_TELEMETRY, input_tokens: tokens?.input ?? null, output_tokens: tokens?.output ?? null },
      session_ref: sessionId,
      warnings,
    },
  };
}

function failureCode(run: FinishedRun, seen: { unparsable: boolean; results: EventRecord[]; result: EventRecord | null }): FailureCode | null {
  // A killed run did not finish: that, not what it printed before, is the outcome (recordings cancel_*).
  if (run.signal !== null) return 'RUNTIME_EXITED_NONZERO';
  if (seen.unparsable || seen.results.length > 1) return 'RUNTIME_OUTPUT_UNPARSABLE';
  const { result } = seen;
  if (result !== null && result.is_error === true) return AUTH_FAILURE_MESSAGE.test(errorMessage(result)) ? 'RUNTIME_AUTH_FAILED' : 'RUNTIME_API_ERROR';
  if (run.exitCode !== 0) return 'RUNTIME_EXITED_NONZERO';
  // Exit 0 without a result: the runtime never reported an outcome Citadel could read.
  return result === null ? 'RUNTIME_OUTPUT_UNPARSABLE' : null;
}

function errorMessage(result: EventRecord): string {
  const message = isRecord(result.error) ? result.error.message : undefined;
  return typeof message === 'string' ? message : '';
}

function usageOf(usage: unknown): { input: number; output: number } | null {
  if (!isRecord(usage)) return null;
  const input = nonNegativeInteger(usage.input_tokens);
  const output = nonNegativeInteger(usage.output_tokens);
  return input === null || output === null ? null : { input, output };
}

function parseEvent(line: string): EventRecord | null {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) && typeof value.type === 'string' ? value : null;
  } catch {
    return null;
  }
}

function nonNegativeInteger(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/**
 * One line of Qwen Code's stream-json as it arrives (issue 14): its kind and a plain sentence, for the
 * live view only (the outcome is read by parseQwenEvents at exit). Tool names are shown; their input,
 * results, messages and the model's text are never copied. null for a line that is not an event or
 * says nothing worth showing (`stream_event` goal states).
 */
export function qwenActivity(line: string): RuntimeActivity | null {
  const event = parseEvent(line.trim());
  if (event === null) return null;
  const message = isRecord(event.message) ? event.message : {};
  const content = Array.isArray(message.content) ? message.content.filter(isRecord) : [];
  switch (event.type) {
    case 'system':
      return event.subtype === 'init' ? { kind: 'session', summary: 'session started' } : null;
    case 'assistant': {
      const tool = content.find((part) => part.type === 'tool_use');
      if (tool !== undefined) return { kind: 'command_started', summary: `using ${toolName(tool.name)}` };
      return content.some((part) => part.type === 'text') ? { kind: 'item_completed', summary: 'message from the model' } : null;
    }
    case 'user': {
      const results = content.filter((part) => part.type === 'tool_result');
      if (results.length === 0) return null;
      const failed = results.some((part) => part.is_error === true);
      return { kind: 'command_completed', summary: failed ? 'a tool call failed' : 'tool call finished' };
    }
    case 'result': {
      if (event.is_error === true) return { kind: 'turn_failed', summary: 'the run failed' };
      const tokens = usageOf(event.usage);
      return { kind: 'turn_completed', summary: tokens === null ? 'run completed' : `run completed · ${tokens.input} input, ${tokens.output} output tokens` };
    }
    default:
      return null;
  }
}

/** Qwen Code's tool names are short snake_case words (`write_file`, `read_file`); anything else is not shown. */
function toolName(name: unknown): string {
  return typeof name === 'string' && /^[a-z_]{1,40}$/.test(name) ? name.replaceAll('_', ' ') : 'a tool';
}
