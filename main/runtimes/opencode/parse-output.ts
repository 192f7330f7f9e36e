import type { RuntimeActivity } from '../../../shared/fork/events';
import { UNKNOWN_TELEMETRY, type FailureCode, type ParsedRuntimeOutput, type RuntimeWarning } from '../../../shared/runtime/telemetry';
import type { FinishedRun } from '../adapter-contract/runtime-adapter';
import { addCount, isRecord, parseTypedEvent } from '../output-reading/json-events';

/** OpenCode names its sessions `ses_` + base62 (recordings/opencode). */
const SESSION_ID = /^ses_[0-9A-Za-z]{1,64}$/;
/** What a tool call OpenCode asked about and then auto-rejected reports (recordings/opencode/write_outside_repo). */
const PERMISSION_REJECTED = /rejected permission/i;

interface Tally {
  sessionIds: Set<unknown>;
  finishedSteps: number;
  inputTokens: number | null;
  outputTokens: number | null;
  error: { statusCode: unknown; name: unknown } | null;
  permissionDenied: boolean;
  cutTail: boolean;
}

/**
 * Reads OpenCode 1.18.33's `run --format json` stdout (recordings/opencode): one JSON event a line,
 * `step_start`, `text`, `tool_use`, `step_finish{part.tokens}`, `error{error.data.statusCode}`, each
 * with its `sessionID`. Unknown event types are skipped; any unparsable line makes the run
 * RUNTIME_OUTPUT_UNPARSABLE, except a last line cut off mid-write after a finished step, which only
 * warns. The model is never in this stream: it stays unknown here, and a contained run's model proof
 * comes from the provider gateway's wire (`opencode export` names only the requested model, and
 * would be another run of the vendor binary on the host). The tokens are the agent's steps only:
 * OpenCode does not print the usage of its title request. Cost stays unknown: OpenCode prices a
 * step from its model catalogue and prints 0 for a provider it has no price for. Never throws.
 */
export function parseOpencodeOutput(run: FinishedRun): ParsedRuntimeOutput {
  const warnings: RuntimeWarning[] = run.stderr.trim() === '' ? [] : ['stderr_output'];
  const tally: Tally = { sessionIds: new Set(), finishedSteps: 0, inputTokens: 0, outputTokens: 0, error: null, permissionDenied: false, cutTail: false };
  const lines = run.stdout.split('\n');
  let sawEvent = false;
  let unparsable = false;

  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const event = parseTypedEvent(line);
    if (event === null) {
      // Only the text after the last newline can be a line cut off mid-write.
      if (index === lines.length - 1 && tally.finishedSteps > 0) tally.cutTail = true;
      else unparsable = true;
      return;
    }
    sawEvent = true;
    record(event, tally);
  });

  const [onlySession] = tally.sessionIds;
  const sessionRef = tally.sessionIds.size === 1 && typeof onlySession === 'string' && SESSION_ID.test(onlySession) ? onlySession : null;
  if (tally.permissionDenied) warnings.push('permission_denials');
  if (tally.cutTail) warnings.push('nonfatal_runtime_errors');
  const haveTokens = tally.finishedSteps > 0 && tally.inputTokens !== null && tally.outputTokens !== null;
  if (sawEvent && !haveTokens) warnings.push('tokens_missing');
  if (sawEvent) warnings.push('observed_model_missing');

  const failure = failureCode(run, unparsable, tally);
  return {
    succeeded: failure === null,
    failure_code: failure,
    telemetry: { ...UNKNOWN_TELEMETRY, input_tokens: haveTokens ? tally.inputTokens : null, output_tokens: haveTokens ? tally.outputTokens : null },
    session_ref: sessionRef,
    warnings,
  };
}

function failureCode(run: FinishedRun, unparsable: boolean, tally: Tally): FailureCode | null {
  // OpenCode has no signal handler (cancel_sigterm, cancel_sigint): a killed run did not finish.
  if (run.signal !== null) return 'RUNTIME_EXITED_NONZERO';
  if (unparsable) return 'RUNTIME_OUTPUT_UNPARSABLE';
  if (tally.error !== null) {
    const { statusCode, name } = tally.error;
    return statusCode === 401 || statusCode === 403 || name === 'ProviderAuthError' ? 'RUNTIME_AUTH_FAILED' : 'RUNTIME_API_ERROR';
  }
  if (run.exitCode !== 0) return 'RUNTIME_EXITED_NONZERO';
  // Exit 0 without a finished step: the runtime never reported an outcome Citadel could read.
  return tally.finishedSteps > 0 ? null : 'RUNTIME_OUTPUT_UNPARSABLE';
}

function record(event: Record<string, unknown>, tally: Tally): void {
  tally.sessionIds.add(event.sessionID);
  const part = isRecord(event.part) ? event.part : {};
  switch (event.type) {
    case 'step_finish': {
      tally.finishedSteps += 1;
      const tokens = isRecord(part.tokens) ? part.tokens : {};
      tally.inputTokens = addCount(tally.inputTokens, tokens.input);
      tally.outputTokens = addCount(tally.outputTokens, tokens.output);
      return;
    }
    case 'tool_use': {
      const state = isRecord(part.state) ? part.state : {};
      if (state.status === 'error' && typeof state.error === 'string' && PERMISSION_REJECTED.test(state.error)) tally.permissionDenied = true;
      return;
    }
    case 'error': {
      const error = isRecord(event.error) ? event.error : {};
      const data = isRecord(error.data) ? error.data : {};
      tally.error = { statusCode: data.statusCode, name: error.name };
      return;
    }
    default:
      return;
  }
}

/**
 * One line of OpenCode's JSON events as it arrives (issue 14), for the live view only: a step, a
 * message, a tool call by its tool name (never its input or output), an error by its status.
 */
export function opencodeActivity(line: string): RuntimeActivity | null {
  const event = parseTypedEvent(line.trim());
  if (event === null) return null;
  const part = isRecord(event.part) ? event.part : {};
  switch (event.type) {
    case 'step_start':
      return { kind: 'turn_started', summary: 'step started' };
    case 'step_finish': {
      const tokens = isRecord(part.tokens) ? part.tokens : {};
      const counts = [count(tokens.input, 'input'), count(tokens.output, 'output')].filter((c) => c !== null);
      return { kind: 'turn_completed', summary: counts.length === 0 ? 'step finished' : `step finished · ${counts.join(', ')} tokens` };
    }
    case 'text':
      return { kind: 'item_completed', summary: 'message from the model' };
    case 'tool_use': {
      const tool = typeof part.tool === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(part.tool) ? part.tool : 'a tool';
      const state = isRecord(part.state) ? part.state : {};
      if (state.status === 'error') {
        const refused = typeof state.error === 'string' && PERMISSION_REJECTED.test(state.error);
        return { kind: 'error', summary: refused ? `${tool} refused: permission rejected` : `${tool} failed` };
      }
      return { kind: 'command_completed', summary: `ran ${tool}` };
    }
    case 'error': {
      const error = isRecord(event.error) ? event.error : {};
      const status = isRecord(error.data) ? error.data.statusCode : undefined;
      return { kind: 'error', summary: typeof status === 'number' && Number.isSafeInteger(status) ? `the provider answered HTTP ${status}` : 'the runtime reported an error' };
    }
    default:
      return null;
  }
}

function count(value: unknown, what: string): string | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? `${value} ${what}` : null;
}
