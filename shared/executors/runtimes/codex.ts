import { z } from 'zod';
import { executorRuntime, WEAKENS_SAFETY } from './descriptor';

/** Codex profiles exactly as spec/executor-profiles.md freezes them (schema 1, unchanged in schema 2). */

export const CODEX_SANDBOXES = ['read-only', 'workspace-write'] as const;

export const CodexOptionsSchema = z.strictObject({
  sandbox: z.enum(CODEX_SANDBOXES).optional(),
});
export type CodexOptions = z.infer<typeof CodexOptionsSchema>;

export const codexRuntime = executorRuntime({
  id: 'codex',
  options: CodexOptionsSchema,
  forbiddenValues: { sandbox: { 'danger-full-access': WEAKENS_SAFETY } },
  localProviders: ['ollama', 'lmstudio'],
  runtimeOnly: 'offered',
});

export const CodexProfileSchema = codexRuntime.profileSchema;
export type CodexProfile = z.infer<typeof CodexProfileSchema>;
