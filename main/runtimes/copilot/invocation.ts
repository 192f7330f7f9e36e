import type { CopilotProfile } from '../../../shared/executors/runtimes/copilot';
import type { Invocation } from '../adapter-contract/runtime-adapter';

/**
 * `copilot --output-format json --allow-all-tools --no-auto-update [--model <m>]`, prompt on stdin
 * (recordings/copilot/prompt_on_stdin). `--allow-all-tools` lets a headless run use its tools at all
 * (without it every tool call is denied: no_allow_all_tools_edit) and keeps Copilot's own path check,
 * which denies writes outside the working directory (write_outside_repo); `--allow-all`, `--yolo`
 * and `--allow-all-paths` lift that check and are never passed. `--model` names the profile's model
 * (as COPILOT_MODEL would; measured with 1.0.102 in BYOK mode), so the operator's COPILOT_MODEL
 * cannot replace it. A local provider is reached through the same OpenAI-compatible BYOK endpoint,
 * so it changes the environment, not the argv.
 */
export function copilotInvocation(profile: CopilotProfile): Invocation {
  return {
    executable: 'copilot',
    args: ['--output-format', 'json', '--allow-all-tools', '--no-auto-update', ...(profile.model === null ? [] : ['--model', profile.model])],
  };
}
