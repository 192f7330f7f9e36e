import { z } from 'zod';
import { executorRuntime } from './descriptor';

/**
 * Qwen Code (`@qwen-code/qwen-code`) profiles. `--approval-mode` advertises plan, default,
 * auto-edit, auto and yolo (0.24.4 `--help`); yolo approves every tool call. `auto` (a model
 * classifier approves what it judges safe) is not offered until a decision on it: adding a value
 * later breaks no file, taking one away would. Qwen Code speaks the OpenAI API, which Ollama and
 * LM Studio serve.
 */

export const QWEN_APPROVAL_MODES = ['plan', 'default', 'auto-edit'] as const;

export const QwenOptionsSchema = z.strictObject({
  approval_mode: z.enum(QWEN_APPROVAL_MODES).optional(),
});
export type QwenOptions = z.infer<typeof QwenOptionsSchema>;

export const qwenRuntime = executorRuntime({
  id: 'qwen',
  options: QwenOptionsSchema,
  forbiddenValues: { approval_mode: { yolo: 'it approves every tool call without asking, which weakens the executor safety boundary' } },
  localProviders: ['ollama', 'lmstudio'],
  runtimeOnly: {
    refused: "Qwen Code loads the repository's .env, where OPENAI_BASE_URL can send your real API key to another server",
  },
});

export const QwenProfileSchema = qwenRuntime.profileSchema;
export type QwenProfile = z.infer<typeof QwenProfileSchema>;
