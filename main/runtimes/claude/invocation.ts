import type { ClaudeProfile } from '../../../shared/executors/runtimes/claude';
import type { Invocation, InvocationContainment } from '../adapter-contract/runtime-adapter';
import { claudeAllowedTools, CLAUDE_DISALLOWED_TOOLS } from './tool-policy';

export const CLAUDE_DEFAULT_PERMISSION_MODE = 'acceptEdits';

/** `claude --print --output-format json --permission-mode <m> --allowedTools <A> --disallowedTools <D> [--model] [--effort]`. */
export function claudeInvocation(profile: ClaudeProfile, containment: InvocationContainment): Invocation {
  const { permission_mode, effort } = profile.adapter_options;
  return {
    executable: 'claude',
    args: [
      '--print',
      '--output-format',
      'json',
      '--permission-mode',
      permission_mode ?? CLAUDE_DEFAULT_PERMISSION_MODE,
      '--allowedTools',
      claudeAllowedTools(containment),
      '--disallowedTools',
      CLAUDE_DISALLOWED_TOOLS,
      ...(profile.model === null ? [] : ['--model', profile.model]),
      ...(effort === undefined ? [] : ['--effort', effort]),
    ],
  };
}
