import { z } from 'zod';

/**
 * Why a branch run failed, as a stable code. Runtime codes come from an adapter's parse of its
 * own machine output; the rest from Citadel's own checks.
 */
export const FAILURE_CODES = [
  'RUNTIME_NOT_FOUND',
  'RUNTIME_SHIM_UNSUPPORTED',
  'RUNTIME_AUTH_FAILED',
  'RUNTIME_API_ERROR',
  'RUNTIME_PROVIDER_UNAVAILABLE',
  'RUNTIME_EXITED_NONZERO',
  'RUNTIME_OUTPUT_UNPARSABLE',
  'RUNTIME_OUTCOME_UNKNOWN',
  'BUDGET_EXCEEDED',
  'STOPPED_BY_OPERATOR',
  'WORKTREE_CONTAINMENT_VIOLATION',
  'POLICY_PROTECTED_PATH',
  'POLICY_SYMLINK_ESCAPE',
  'VERIFIER_FAILED',
  'VERIFICATION_TREE_MISMATCH',
] as const;
export const FailureCodeSchema = z.enum(FAILURE_CODES);
export type FailureCode = z.infer<typeof FailureCodeSchema>;

/** Where an observed model came from: only an adapter's own trusted machine output counts. */
export const ObservedModelSourceSchema = z.enum(['claude_result_model_usage', 'codex_rollout_turn_context', 'gemini_result_stats_models', 'qwen_session_api_response']);

/**
 * Telemetry parsed from a runtime's declared machine output. Unknown is null: never 0, never the
 * requested value.
 */
export const TelemetrySchema = z.strictObject({
  observed_model: z.string().nullable(),
  observed_model_source: ObservedModelSourceSchema.nullable(),
  input_tokens: z.number().int().nonnegative().nullable(),
  output_tokens: z.number().int().nonnegative().nullable(),
  cost_usd: z.number().nonnegative().nullable(),
});
export type Telemetry = z.infer<typeof TelemetrySchema>;

export const UNKNOWN_TELEMETRY: Telemetry = {
  observed_model: null,
  observed_model_source: null,
  input_tokens: null,
  output_tokens: null,
  cost_usd: null,
};

/** Enumerated adapter warnings: public artifacts carry codes, never free text. */
export const RUNTIME_WARNINGS = [
  'observed_model_missing',
  'observed_model_not_public_safe',
  'observed_model_ambiguous',
  'rollout_not_found',
  'rollout_cwd_mismatch',
  'rollout_unreadable',
  'tokens_missing',
  'cost_missing',
  'permission_denials',
  'nonfatal_runtime_errors',
  'stderr_output',
] as const;
export const RuntimeWarningSchema = z.enum(RUNTIME_WARNINGS);
export type RuntimeWarning = z.infer<typeof RuntimeWarningSchema>;

/** What an adapter concludes from one finished run's exit status and output. */
export const ParsedRuntimeOutputSchema = z.strictObject({
  /** The runtime itself reported success (exit 0 and no error in its machine output). */
  succeeded: z.boolean(),
  failure_code: FailureCodeSchema.nullable(),
  telemetry: TelemetrySchema,
  /** Claude session_id / Codex thread_id: private state only, never public. */
  session_ref: z.string().nullable(),
  warnings: z.array(RuntimeWarningSchema),
});
export type ParsedRuntimeOutput = z.infer<typeof ParsedRuntimeOutputSchema>;
