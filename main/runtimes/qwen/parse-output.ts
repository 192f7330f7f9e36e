import type { ParsedRuntimeOutput } from '../../../shared/runtime/telemetry';
import type { FinishedRun } from '../adapter-contract/runtime-adapter';
import { parseQwenEvents } from './parse-events';
import { lookupSessionModel, qwenHomeFrom } from './session-model';

/** Qwen Code's outcome and tokens from its stdout events, its served model from the session file those events name. */
export async function parseQwenOutput(run: FinishedRun, maxSessionBytes?: number): Promise<ParsedRuntimeOutput> {
  const { output, sessionId } = parseQwenEvents(run);
  if (sessionId === null) return output;
  const qwenHome = qwenHomeFrom(run.env);
  const found =
    qwenHome === null
      ? ({ model: null, warning: 'rollout_not_found' } as const)
      : await lookupSessionModel({ qwenHome, sessionId, worktree: run.worktree }, maxSessionBytes);
  return {
    ...output,
    telemetry: { ...output.telemetry, observed_model: found.model, observed_model_source: found.model === null ? null : 'qwen_session_api_response' },
    warnings: found.warning === null ? output.warnings : [...output.warnings, found.warning],
  };
}
