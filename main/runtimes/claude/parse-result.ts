import { z } from 'zod';
import { ModelIdSchema } from '../../../shared/executors/profile-schema';
import {
  UNKNOWN_TELEMETRY,
  type FailureCode,
  type ParsedRuntimeOutput,
  type RuntimeWarning,
  type Telemetry,
} from '../../../shared/runtime/telemetry';
import type { FinishedRun } from '../adapter-contract/runtime-adapter';
import { isRecord } from '../output-reading/json-events';

type ResultObject = Record<string, unknown> & { is_error: boolean };

/**
 * Reads Claude Code's `--output-format json` stdout: exactly one `{"type":"result",…}` object
 * (recordings/claude). Errors also say `subtype: "success"`, so only `is_error` and the exit code
 * decide the outcome. Never throws: output it cannot read is RUNTIME_OUTPUT_UNPARSABLE.
 */
export function parseClaudeResult(run: FinishedRun): ParsedRuntimeOutput {
  const warnings: RuntimeWarning[] = run.stderr.trim() === '' ? [] : ['stderr_output'];
  const text = run.stdout.trim();
  if (text === '') {
    // A refusal before any work (recordings h1, h4) prints only to stderr and exits nonzero.
    return unread(run.exitCode === 0 ? 'RUNTIME_OUTPUT_UNPARSABLE' : 'RUNTIME_EXITED_NONZERO', warnings);
  }
  const result = readResultObject(text);
  // A run killed mid-print did not finish: that, not its cut output, is the outcome.
  if (result === null) return unread(run.signal === null ? 'RUNTIME_OUTPUT_UNPARSABLE' : 'RUNTIME_EXITED_NONZERO', warnings);

  // A killed run did not finish, whatever result it had printed.
  const failure = run.signal !== null ? 'RUNTIME_EXITED_NONZERO' : result.is_error ? errorFailureCode(result) : run.exitCode === 0 ? null : 'RUNTIME_EXITED_NONZERO';
  const model = observedModel(result.modelUsage);
  // Error results report zero usage, zero cost and an empty modelUsage: placeholders, not measurements.
  const usage = isRecord(result.usage) ? result.usage : {};
  const telemetry: Telemetry = {
    observed_model: model.value,
    observed_model_source: model.value === null ? null : 'claude_result_model_usage',
    input_tokens: result.is_error ? null : nonNegativeInteger(usage.input_tokens),
    output_tokens: result.is_error ? null : nonNegativeInteger(usage.output_tokens),
    cost_usd: result.is_error ? null : nonNegativeNumber(result.total_cost_usd),
  };

  if (model.warning !== null) warnings.push(model.warning);
  if (telemetry.input_tokens === null || telemetry.output_tokens === null) warnings.push('tokens_missing');
  if (telemetry.cost_usd === null) warnings.push('cost_missing');
  if (Array.isArray(result.permission_denials) && result.permission_denials.length > 0) warnings.push('permission_denials');

  const sessionId = z.uuid().safeParse(result.session_id);
  return {
    succeeded: failure === null,
    failure_code: failure,
    telemetry,
    session_ref: sessionId.success ? sessionId.data : null,
    warnings,
  };
}

function readResultObject(text: string): ResultObject | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value) || value.type !== 'result' || typeof value.is_error !== 'boolean') return null;
  return value as ResultObject;
}

function errorFailureCode(result: ResultObject): FailureCode {
  const status = result.api_error_status;
  const message = typeof result.result === 'string' ? result.result : '';
  if (status === 401 || status === 403 || result.api_error_type === 'authentication_error' || message.startsWith('Not logged in')) {
    return 'RUNTIME_AUTH_FAILED';
  }
  if (result.api_error === 'connection_failed') return 'RUNTIME_PROVIDER_UNAVAILABLE';
  return 'RUNTIME_API_ERROR';
}

/** The observed model is the single key of `modelUsage`; the result has no top-level model (decisions D5). */
function observedModel(modelUsage: unknown): { value: string | null; warning: RuntimeWarning | null } {
  const keys = isRecord(modelUsage) ? Object.keys(modelUsage) : [];
  const [only] = keys;
  if (only === undefined) return { value: null, warning: 'observed_model_missing' };
  if (keys.length > 1) return { value: null, warning: 'observed_model_ambiguous' };
  if (!ModelIdSchema.safeParse(only).success) return { value: null, warning: 'observed_model_not_public_safe' };
  return { value: only, warning: null };
}

function unread(failure: FailureCode, warnings: RuntimeWarning[]): ParsedRuntimeOutput {
  return { succeeded: false, failure_code: failure, telemetry: { ...UNKNOWN_TELEMETRY }, session_ref: null, warnings };
}

function nonNegativeInteger(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

function nonNegativeNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}
