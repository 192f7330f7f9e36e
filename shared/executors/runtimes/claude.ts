import { z } from 'zod';
import { executorRuntime, WEAKENS_SAFETY } from './descriptor';

/** Claude Code profiles exactly as spec/executor-profiles.md freezes them (schema 1, unchanged in schema 2). */

export const CLAUDE_PERMISSION_MODES = ['acceptEdits', 'auto', 'manual', 'dontAsk', 'plan'] as const;
export const CLAUDE_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

export const ClaudeOptionsSchema = z.strictObject({
  permission_mode: z.enum(CLAUDE_PERMISSION_MODES).optional(),
  effort: z.enum(CLAUDE_EFFORTS).optional(),
});
export type ClaudeOptions = z.infer<typeof ClaudeOptionsSchema>;

export const claudeRuntime = executorRuntime({
  id: 'claude',
  options: ClaudeOptionsSchema,
  forbiddenValues: { permission_mode: { bypassPermissions: WEAKENS_SAFETY } },
  localProviders: [],
  runtimeOnly: 'offered',
});

export const ClaudeProfileSchema = claudeRuntime.profileSchema;
export type ClaudeProfile = z.infer<typeof ClaudeProfileSchema>;
