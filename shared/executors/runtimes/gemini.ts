import { z } from 'zod';
import { executorRuntime } from './descriptor';

/**
 * Gemini CLI (`@google/gemini-cli`) profiles. `--approval-mode` advertises default, auto_edit,
 * yolo and plan (0.61.0 `--help`); yolo approves every tool call, as `--yolo` does. Gemini CLI
 * talks only to the Gemini API, so it has no local provider.
 */

export const GEMINI_APPROVAL_MODES = ['default', 'auto_edit', 'plan'] as const;

export const GeminiOptionsSchema = z.strictObject({
  approval_mode: z.enum(GEMINI_APPROVAL_MODES).optional(),
});
export type GeminiOptions = z.infer<typeof GeminiOptionsSchema>;

export const geminiRuntime = executorRuntime({
  id: 'gemini',
  options: GeminiOptionsSchema,
  forbiddenValues: { approval_mode: { yolo: 'it approves every tool call without asking, which weakens the executor safety boundary' } },
  localProviders: [],
  runtimeOnly: {
    refused:
      "Gemini CLI, trusting the worktree as it must to run headless, loads the repository's .env (GOOGLE_GEMINI_BASE_URL can send your real GEMINI_API_KEY to another server) and its .gemini/settings.json (MCP servers and hooks that run on this host)",
  },
});

export const GeminiProfileSchema = geminiRuntime.profileSchema;
export type GeminiProfile = z.infer<typeof GeminiProfileSchema>;
