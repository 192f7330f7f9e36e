import { z } from 'zod';
import { executorRuntime } from './descriptor';

/**
 * GitHub Copilot CLI (`@github/copilot`) profiles. No options: its permission switches
 * (`--allow-all`, `--yolo`, `--allow-all-paths`, `--allow-all-urls`, autopilot) only widen what it
 * may do, so none is offered and any such key is an unknown option. Its offline BYOK mode
 * (`COPILOT_PROVIDER_TYPE=openai`, "OpenAI-compatible endpoints including Ollama", 1.0.102
 * `copilot help environment`) reaches Ollama and LM Studio.
 */

export const CopilotOptionsSchema = z.strictObject({});
export type CopilotOptions = z.infer<typeof CopilotOptionsSchema>;

export const copilotRuntime = executorRuntime({
  id: 'copilot',
  options: CopilotOptionsSchema,
  forbiddenValues: {},
  localProviders: ['ollama', 'lmstudio'],
  runtimeOnly: {
    refused:
      "Copilot CLI runs headless only with its allow-all-tools approval, which approves every shell command on this host, so an instruction in the repository can send COPILOT_PROVIDER_API_KEY anywhere",
  },
});

export const CopilotProfileSchema = copilotRuntime.profileSchema;
export type CopilotProfile = z.infer<typeof CopilotProfileSchema>;
