import type { CodexProfile } from '../../../shared/executors/runtimes/codex';
import type { Invocation } from '../adapter-contract/runtime-adapter';

export const CODEX_DEFAULT_SANDBOX = 'workspace-write';

/** `codex exec --json --sandbox <s> --ignore-user-config [--oss --local-provider <p>] [--model <m>] -`. */
export function codexInvocation(profile: CodexProfile): Invocation {
  return {
    executable: 'codex',
    args: [
      'exec',
      '--json',
      '--sandbox',
      profile.adapter_options.sandbox ?? CODEX_DEFAULT_SANDBOX,
      '--ignore-user-config',
      ...(profile.local_provider === null ? [] : ['--oss', '--local-provider', profile.local_provider]),
      ...(profile.model === null ? [] : ['--model', profile.model]),
      '-',
    ],
  };
}
