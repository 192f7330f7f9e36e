import { z } from 'zod';
import { ModelIdSchema } from '../../../shared/executors/profile-schema';
import { UNKNOWN_TELEMETRY, type FailureCode, type ParsedRuntimeOutput, type RuntimeWarning } from '../../../shared/runtime/telemetry';
import type { FinishedRun } from '../adapter-contract/runtime-adapter';
import { isRecord, parseTypedEvent } from '../output-reading/json-events';

/**
 * Gemini CLI's exit code for an authentication it cannot even start with (no auth type selected,
 * no key): the bundle's FatalAuthenticationError, stderr only (recordings/gemini/no_auth_settings).
 */
const EXIT_FATAL_AUTHENTICATION = 41;

/**
 * A provider's refusal of the credential, in the `[API Error: {…}]` message of an error result: 401
 * UNAUTHENTICATED (recordings err401), 403 PERMISSION_DENIED, or the 400 API_KEY_INVALID the real
 * API answers for a wrong key (recordings err400_api_key_invalid).
 */
const AUTH_FAILURE_MESSAGE = /"code":\s*40[13]\b|UNAUTHENTICATED|PERMISSION_DENIED|API_KEY_INVALID/;

interface Seen {
  sessionIds: unknown[];
  result: Record<string, unknown> | null;
  toolErrors: boolean;
}

/**
 * Reads Gemini CLI 0.61.0's `-o stream-json` stdout (recordings/gemini): `init`, `message`,
 * `tool_use`, `tool_result`, then one `result` whose `status` is the outcome. Errors come inside
 * the result (no `error` line was ever printed) and exit with the HTTP status mod 256 (144, 145,
 * 244); a SIGTERM or SIGINT ends it with exit 0 and no result, which is never a success. The
 * served model is the one key of `result.stats.models` (`init.model` only repeats `-m`). Never throws.
 */
export function parseGeminiOutput(run: FinishedRun): ParsedRuntimeOutput {
  const seen: Seen = { sessionIds: [], result: null, toolErrors: false };
  for (const line of run.stdout.split('\n')) {
    const event = parseTypedEvent(line.trim());
    if (event !== null) record(event, seen);
  }
  const failure = failureOf(run, seen.result);
  const stats = seen.result !== null && isRecord(seen.result.stats) ? seen.result.stats : null;
  // An error result reports zeros under the requested model: placeholders, not measurements.
  const measured = failure === null && stats !== null ? stats : null;
  const model = observedModel(measured?.models);
  const inputTokens = nonNegativeInteger(measured?.input_tokens);
  const outputTokens = nonNegativeInteger(measured?.output_tokens);

  const warnings: RuntimeWarning[] = run.stderr.trim() === '' ? [] : ['stderr_output'];
  if (seen.toolErrors) warnings.push('nonfatal_runtime_errors');
  if (model.warning !== null) warnings.push(model.warning);
  if (inputTokens === null || outputTokens === null) warnings.push('tokens_missing');

  const [onlySession] = seen.sessionIds;
  const sessionId = seen.sessionIds.length === 1 ? z.uuid().safeParse(onlySession) : null;
  return {
    succeeded: failure === null,
    failure_code: failure,
    telemetry: {
      ...UNKNOWN_TELEMETRY,
      observed_model: model.value,
      observed_model_source: model.value === null ? null : 'gemini_result_stats_models',
      input_tokens: inputTokens,
      output_tokens: outputTokens,
    },
    session_ref: sessionId?.success === true ? sessionId.data : null,
    warnings,
  };
}

function failureOf(run: FinishedRun, result: Record<string, unknown> | null): FailureCode | null {
  // A killed run did not finish, whatever it had printed.
  if (run.signal !== null) return 'RUNTIME_EXITED_NONZERO';
  if (result === null) {
    if (run.exitCode === EXIT_FATAL_AUTHENTICATION) return 'RUNTIME_AUTH_FAILED';
    // Exit 0 without a result: cut off, or stopped (a SIGTERM/SIGINT exits 0 too); never a success.
    return run.exitCode === 0 ? 'RUNTIME_OUTPUT_UNPARSABLE' : 'RUNTIME_EXITED_NONZERO';
  }
  if (result.status === 'error') {
    const message = isRecord(result.error) && typeof result.error.message === 'string' ? result.error.message : '';
    return AUTH_FAILURE_MESSAGE.test(message) ? 'RUNTIME_AUTH_FAILED' : 'RUNTIME_API_ERROR';
  }
  if (result.status !== 'success') return 'RUNTIME_OUTPUT_UNPARSABLE';
  return run.exitCode === 0 ? null : 'RUNTIME_EXITED_NONZERO';
}

function record(event: Record<string, unknown>, seen: Seen): void {
  switch (event.type) {
    case 'init':
      seen.sessionIds.push(event.session_id);
      return;
    case 'tool_result':
      // A tool the CLI refused (a path outside the workspace) is reported to the model, and the run goes on.
      if (event.status === 'error') seen.toolErrors = true;
      return;
    case 'result':
      seen.result = event;
      return;
    default:
      return;
  }
}

/** The served model is the single key of `result.stats.models` (recordings/gemini/model_served_differs). */
function observedModel(models: unknown): { value: string | null; warning: RuntimeWarning | null } {
  const keys = isRecord(models) ? Object.keys(models) : [];
  const [only] = keys;
  if (only === undefined) return { value: null, warning: 'observed_model_missing' };
  if (keys.length > 1) return { value: null, warning: 'observed_model_ambiguous' };
  if (!ModelIdSchema.safeParse(only).success) return { value: null, warning: 'observed_model_not_public_safe' };
  return { value: only, warning: null };
}


function nonNegativeInteger(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
