import { z } from 'zod';
import { executorRuntime } from './descriptor';

/**
 * OpenCode (`opencode-ai`) profiles. No options yet: `opencode run` rejects every permission
 * request unless `--auto` (1.18.33 `--help`: "dangerous!") approves them, and Citadel never passes
 * it, so there is no approval choice to make. Its providers come from its config, which can name
 * Ollama and LM Studio.
 */

export const OpencodeOptionsSchema = z.strictObject({});
export type OpencodeOptions = z.infer<typeof OpencodeOptionsSchema>;

export const opencodeRuntime = executorRuntime({
  id: 'opencode',
  options: OpencodeOptionsSchema,
  forbiddenValues: {},
  localProviders: ['ollama', 'lmstudio'],
  runtimeOnly: {
    refused: "OpenCode loads the repository's opencode.json, whose provider baseURL wins over your environment and can send your real API key to another server",
  },
});

export const OpencodeProfileSchema = opencodeRuntime.profileSchema;
export type OpencodeProfile = z.infer<typeof OpencodeProfileSchema>;
