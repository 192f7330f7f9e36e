import { z } from 'zod';
import {
  UNKNOWN_TELEMETRY,
  type FailureCode,
  type ParsedRuntimeOutput,
  type RuntimeWarning,
} from '../../../shared/runtime/telemetry';
import type { FinishedRun } from '../runtime-adapter';

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
    const event = parseEvent(line);
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
      tally.inputTokens = sum(tally.inputTokens, usage.input_tokens);
      tally.outputTokens = sum(tally.outputTokens, usage.output_tokens);
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

function parseEvent(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) && typeof value.type === 'string' ? value : null;
  } catch {
    return null;
  }
}

function sum(total: number | null, value: unknown): number | null {
  if (total === null || typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return null;
  return total + value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
