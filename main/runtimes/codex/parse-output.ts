import type { ParsedRuntimeOutput } from '../../../shared/runtime/telemetry';
import type { FinishedRun } from '../adapter-contract/runtime-adapter';
import { parseCodexEvents } from './parse-events';
import { codexHomeFrom, lookupRolloutModel, type RolloutLimits } from './rollout-lookup';

/** Codex's outcome and tokens from its stdout events, its model from the rollout those events name. */
export async function parseCodexOutput(run: FinishedRun, limits?: RolloutLimits): Promise<ParsedRuntimeOutput> {
  const { output, threadId } = parseCodexEvents(run);
  if (threadId === null) return output;
  const codexHome = codexHomeFrom(run.env);
  const found =
    codexHome === null
      ? ({ model: null, warning: 'rollout_not_found' } as const)
      : await lookupRolloutModel({ codexHome, threadId, worktree: run.worktree }, limits);
  return {
    ...output,
    telemetry: {
      ...output.telemetry,
      observed_model: found.model,
      observed_model_source: found.model === null ? null : 'codex_rollout_turn_context',
    },
    warnings: found.warning === null ? output.warnings : [...output.warnings, found.warning],
  };
}
