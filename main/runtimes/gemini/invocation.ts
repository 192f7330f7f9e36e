import type { GeminiProfile } from '../../../shared/executors/runtimes/gemini';
import type { Invocation } from '../adapter-contract/runtime-adapter';

/**
 * Headless, `default` offers the model no edit, write or shell tool at all (recordings/gemini/
 * edit_approval_default), so a branch could change nothing; `auto_edit` adds edits and writes inside
 * the workspace, as Claude's acceptEdits does. yolo is refused by the profile schema.
 */
export const GEMINI_DEFAULT_APPROVAL_MODE = 'auto_edit';

/**
 * `gemini -p '' -o stream-json [-m <model>] --approval-mode <m> --skip-trust`, the prompt on stdin
 * (`-p` appends its value to stdin's). Gemini CLI 0.61.0 refuses an untrusted folder headless (exit
 * 55, recordings/gemini/untrusted_folder): `--skip-trust` trusts the worktree for this session only.
 */
export function geminiInvocation(profile: GeminiProfile): Invocation {
  return {
    executable: 'gemini',
    args: [
      '-p',
      '',
      '-o',
      'stream-json',
      ...(profile.model === null ? [] : ['-m', profile.model]),
      '--approval-mode',
      profile.adapter_options.approval_mode ?? GEMINI_DEFAULT_APPROVAL_MODE,
      '--skip-trust',
    ],
  };
}
