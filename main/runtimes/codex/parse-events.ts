import { z } from 'zod';
import type { RuntimeActivity } from '../../../shared/fork/events';
import {
  UNKNOWN_TELEMETRY,
  type FailureCode,
  type ParsedRuntimeOutput,
  type RuntimeWarning,
} from '../../../shared/runtime/telemetry';
import type { FinishedRun } from '../adapter-contract/runtime-adapter';
import { addCount, isRecord, parseTypedEvent } from '../output-reading/json-events';

/** What Codex's `exec --json` stdout says. The model is never in it: that comes from the rollout. */
export interface CodexEventsSummary {
  readonly output: ParsedRuntimeOutput;
  /** The one `thread.started` thread_id, validated as a UUID (it names the rollout file); else null. */
  readonly threadId: string | null;
}

/** Setup failures print nothing on stdout and say why on stderr (recordings d1, f4, g3). */
const PROVIDER_UNAVAILABLE_STDERR = [/OSS setup failed/, /No running Ollama server/, /LM Studio is not responding/, /is too old/];
const AUTH_FAILURE_MESSAGE = /\b40[13]\b|unauthorized|forbidden/i;

interface Tally {
  /** Every `thread.started` thread_id as printed, valid or not. */
  threadIds: unknown[];
  completedTurns: number;
  inputTokens: number | null;
  outputTokens: number | null;
  failureMessage: string | null;
  nonfatalErrors: boolean;
}

/**
 * Reads Codex's JSONL event stream (recordings/codex): `thread.started`, `turn.started`, `item.*`,
 * `turn.completed{usage}`, `turn.failed{error}`, `error`. Blank lines are ignored and unknown event
 * types are skipped. Any unparsable line makes the run RUNTIME_OUTPUT_UNPARSABLE, with one exception:
 * a final line cut off mid-write (no trailing newline) after a `turn.completed` cannot change an
 * outcome the runtime already reported, so it only adds the `nonfatal_runtime_errors` warning.
 * Never throws.
 */
export function parseCodexEvents(run: FinishedRun): CodexEventsSummary {
  const warnings: RuntimeWarning[] = run.stderr.trim() === '' ? [] : ['stderr_output'];
  const lines = run.stdout.split('\n');
  const lastIndex = lines.length - 1;
  const tally: Tally = { threadIds: [], completedTurns: 0, inputTokens: 0, outputTokens: 0, failureMessage: null, nonfatalErrors: false };
  let sawEvent = false;
  let unparsable = false;

  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const event = parseTypedEvent(line);
    if (event === null) {
      // Only the text after the last newline can be a line cut off mid-write.
      const truncatedTail = index === lastIndex && tally.completedTurns > 0;
      if (truncatedTail) tally.nonfatalErrors = true;
      else unparsable = true;
      return;
    }
    sawEvent = true;
    record(event, tally);
  });

  const onlyThread = tally.threadIds.length === 1 ? z.uuid().safeParse(tally.threadIds[0]) : null;
  const threadId = onlyThread?.success === true ? onlyThread.data : null;
  if (tally.nonfatalErrors) warnings.push('nonfatal_runtime_errors');
  const haveTokens = tally.completedTurns > 0 && tally.inputTokens !== null && tally.outputTokens !== null;
  if (sawEvent && !haveTokens) warnings.push('tokens_missing');
  // With a thread id, the model is looked up in its rollout (rollout-lookup.ts); without one it cannot be.
  if (sawEvent && threadId === null) warnings.push('observed_model_missing');

  const failure = failureCode(run, { sawEvent, unparsable, tally });
  return {
    threadId,
    output: {
      succeeded: failure === null,
      failure_code: failure,
      telemetry: {
        ...UNKNOWN_TELEMETRY,
        input_tokens: haveTokens ? tally.inputTokens : null,
        output_tokens: haveTokens ? tally.outputTokens : null,
      },
      session_ref: threadId,
      warnings,
    },
  };
}

function failureCode(run: FinishedRun, seen: { sawEvent: boolean; unparsable: boolean; tally: Tally }): FailureCode | null {
  // A killed run did not finish: that, not what it printed before (a cut line, an error), is the outcome.
  if (run.signal !== null) return 'RUNTIME_EXITED_NONZERO';
  if (seen.unparsable) return 'RUNTIME_OUTPUT_UNPARSABLE';
  const { failureMessage, completedTurns } = seen.tally;
  if (failureMessage !== null) return AUTH_FAILURE_MESSAGE.test(failureMessage) ? 'RUNTIME_AUTH_FAILED' : 'RUNTIME_API_ERROR';
  if (run.exitCode !== 0) {
    const providerDown = !seen.sawEvent && PROVIDER_UNAVAILABLE_STDERR.some((pattern) => pattern.test(run.stderr));
    return providerDown ? 'RUNTIME_PROVIDER_UNAVAILABLE' : 'RUNTIME_EXITED_NONZERO';
  }
  // Exit 0 without a completed turn: the runtime never reported an outcome Citadel could read.
  return completedTurns > 0 ? null : 'RUNTIME_OUTPUT_UNPARSABLE';
}

function record(event: Record<string, unknown>, tally: Tally): void {
  switch (event.type) {
    case 'thread.started':
      tally.threadIds.push(event.thread_id);
      return;
    case 'turn.completed': {
      tally.completedTurns += 1;
      const usage = isRecord(event.usage) ? event.usage : {};
      tally.inputTokens = addCount(tally.inputTokens, usage.input_tokens);
      tally.outputTokens = addCount(tally.outputTokens, usage.output_tokens);
      return;
    }
    case 'turn.failed': {
      const message = isRecord(event.error) ? event.error.message : undefined;
      tally.failureMessage = typeof message === 'string' ? message : '';
      return;
    }
    case 'error':
      // Retries ("Reconnecting... n/5") are reported as top-level errors even when the turn then succeeds.
      tally.nonfatalErrors = true;
      return;
    case 'item.completed':
      if (isRecord(event.item) && event.item.type === 'error') tally.nonfatalErrors = true;
      return;
    default:
      return;
  }
}

/**
 * One line of Codex's JSONL as it arrives (issue 14): its kind and a plain sentence, for the live
 * view only (the outcome is read by parseCodexEvents at exit). Command text is shown without the
 * shell wrapper Codex adds, on one line and whole: the live monitor scans it for secrets before it
 * cuts it to the event's length. Output, messages and reasoning are never copied. null for a line
 * that is not an event or says nothing worth showing.
 */
export function codexActivity(line: string): RuntimeActivity | null {
  const event = parseTypedEvent(line.trim());
  if (event === null) return null;
  const item = isRecord(event.item) ? event.item : null;
  switch (event.type) {
    case 'thread.started':
      return { kind: 'session', summary: 'session started' };
    case 'turn.started':
      return { kind: 'turn_started', summary: 'turn started' };
    case 'turn.completed': {
      const usage = isRecord(event.usage) ? event.usage : {};
      const tokens = [count(usage.input_tokens, 'input'), count(usage.output_tokens, 'output')].filter((part) => part !== null);
      return { kind: 'turn_completed', summary: tokens.length === 0 ? 'turn completed' : `turn completed · ${tokens.join(', ')} tokens` };
    }
    case 'turn.failed':
      return { kind: 'turn_failed', summary: 'turn failed' };
    case 'error':
      return { kind: 'error', summary: 'the runtime reported an error' };
    case 'item.started':
    case 'item.completed':
      return item === null ? null : itemActivity(item, event.type === 'item.started');
    default:
      return null;
  }
}

function itemActivity(item: Record<string, unknown>, started: boolean): RuntimeActivity | null {
  switch (item.type) {
    case 'command_execution': {
      const command = typeof item.command === 'string' ? oneLine(unwrapShell(item.command)) : 'a command';
      if (started) return { kind: 'command_started', summary: `running ${command}` };
      const exit = typeof item.exit_code === 'number' ? ` (exit ${item.exit_code})` : '';
      return { kind: 'command_completed', summary: `ran ${command}${exit}` };
    }
    case 'file_change': {
      const changes = Array.isArray(item.changes) ? item.changes.length : 0;
      const files = `${changes} file${changes === 1 ? '' : 's'}`;
      return { kind: started ? 'item_started' : 'item_completed', summary: started ? `editing ${files}` : `edited ${files}` };
    }
    case 'agent_message':
      return started ? null : { kind: 'item_completed', summary: 'message from the model' };
    case 'reasoning':
      return started ? null : { kind: 'item_completed', summary: 'reasoning step' };
    case 'error':
      return { kind: 'error', summary: 'the runtime reported an error' };
    default:
      return typeof item.type === 'string' && /^[a-z_]{1,40}$/.test(item.type) ? { kind: started ? 'item_started' : 'item_completed', summary: item.type.replaceAll('_', ' ') } : null;
  }
}

/** Codex runs each command as `/bin/bash -lc "<command>"` (recordings b1, b3): the command is what the operator wants to see. */
function unwrapShell(command: string): string {
  const wrapped = /^\/bin\/(?:ba)?sh -lc (["'])([\s\S]*)\1$/.exec(command);
  return wrapped?.[2] ?? command;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function count(value: unknown, what: string): string | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? `${value} ${what}` : null;
}
