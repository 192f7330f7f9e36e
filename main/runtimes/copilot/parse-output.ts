import type { ParsedRuntimeOutput } from '../../../shared/runtime/telemetry';
import type { FinishedRun } from '../adapter-contract/runtime-adapter';
import { parseCopilotEvents } from './parse-events';
import { copilotHomeFrom, lookupSessionTokens } from './session-usage';

/** Copilot's outcome from its stdout events, its tokens from the session those events name. */
export async function parseCopilotOutput(run: FinishedRun): Promise<ParsedRuntimeOutput> {
  const { output, sessionId, sawEvent } = parseCopilotEvents(run);
  const home = copilotHomeFrom(run.env);
  const tokens = sessionId === null || home === null ? null : await lookupSessionTokens(home, sessionId);
  return {
    ...output,
    telemetry: { ...output.telemetry, input_tokens: tokens?.input ?? null, output_tokens: tokens?.output ?? null },
    warnings: tokens === null && sawEvent ? [...output.warnings, 'tokens_missing'] : output.warnings,
  };
}
