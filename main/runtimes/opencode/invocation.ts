import type { OpencodeProfile } from '../../../shared/executors/runtimes/opencode';
import type { Invocation, InvocationContainment } from '../adapter-contract/runtime-adapter';

/**
 * The provider id Citadel's own OpenCode config names when a run is contained: one
 * OpenAI-compatible provider pointed at the provider gateway (containment-needs.ts), whatever
 * provider the gateway forwards to.
 */
export const OPENCODE_GATEWAY_PROVIDER = 'citadel';

/**
 * The provider OpenCode names a profile's model under when it runs with the operator's own config
 * (runtime-only): its built-in `openai`, or the `ollama` / `lmstudio` provider the operator's
 * config declares (OpenCode's documented ids for them).
 */
function operatorProvider(profile: OpencodeProfile): string {
  return profile.local_provider ?? 'openai';
}

/**
 * `opencode run --format json [-m <provider>/<model>]`, the prompt on stdin (recordings/opencode:
 * stdin is appended to the message). Never `--auto` (or its hidden aliases `--yolo`,
 * `--dangerously-skip-permissions`): without it OpenCode rejects every permission request it would
 * ask about. Without a model OpenCode picks its configured default (runtime-only only: a contained
 * profile needs one, see containment-needs.ts).
 */
export function opencodeInvocation(profile: OpencodeProfile, containment: InvocationContainment): Invocation {
  const provider = containment === 'contained' ? OPENCODE_GATEWAY_PROVIDER : operatorProvider(profile);
  return {
    executable: 'opencode',
    args: ['run', '--format', 'json', ...(profile.model === null ? [] : ['-m', `${provider}/${profile.model}`])],
  };
}
