import type { QwenProfile } from '../../../shared/executors/runtimes/qwen';
import type { Invocation, InvocationContainment } from '../adapter-contract/runtime-adapter';

/**
 * The approval mode when the profile names none. Qwen Code 0.24.4's `auto-edit` writes files even
 * outside its working directory without asking (recordings/qwen/write_outside_repo), so it is the
 * default only when the operating system contains the run; uncontained, `default` offers no write
 * tool headless (recordings/qwen/edit_approval_default) and the run can only read.
 */
export const QWEN_DEFAULT_APPROVAL_MODE: Readonly<Record<InvocationContainment, string>> = {
  contained: 'auto-edit',
  'runtime-only': 'default',
};

/**
 * `qwen --output-format stream-json --approval-mode <m> [--model <m>]`, the prompt on stdin (accepted
 * without `-p`, which 0.24.4 deprecates). A local provider changes only where the gateway forwards:
 * Qwen Code speaks the same OpenAI API to Ollama and LM Studio.
 */
export function qwenInvocation(profile: QwenProfile, containment: InvocationContainment): Invocation {
  return {
    executable: 'qwen',
    args: [
      '--output-format',
      'stream-json',
      '--approval-mode',
      profile.adapter_options.approval_mode ?? QWEN_DEFAULT_APPROVAL_MODE[containment],
      ...(profile.model === null ? [] : ['--model', profile.model]),
    ],
  };
}
