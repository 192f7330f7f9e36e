import { profileFor, type Invocation, type RuntimeAdapter } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import { ECHO_RUNTIME_ID, EchoProfileSchema, type EchoProfile } from './profile-schema';
import { parseEchoOutput } from './parse-output';
import { bearer, fromEnvKeys } from '../../../main/runtimes/credentials/env-keys';

/**
 * A third runtime that exists only in tests. It is registered by injecting it into
 * OrchestratorContext.adapters, which proves a runtime plugs in without an engine edit.
 */
export const conformanceEchoAdapter: RuntimeAdapter = {
  id: ECHO_RUNTIME_ID,
  executable: 'conformance-echo',
  vendorPackage: { name: 'conformance-echo', bin: 'conformance-echo' },
  envAllowlist: ['CONFORMANCE_ECHO_TOKEN'],
  credentialEnvNames: ['CONFORMANCE_ECHO_TOKEN'],
  credentials: {
    locate: (_profile, env) => Promise.resolve(fromEnvKeys([{ name: 'CONFORMANCE_ECHO_TOKEN', kind: 'env_api_key', headers: bearer }], env)),
    missingAdvice: 'set CONFORMANCE_ECHO_TOKEN',
    placeholder: { prefix: 'echo-', suffix: '' },
  },
  profileSchema: EchoProfileSchema,
  runtimeOnly: 'offered',
  invocation: (profile) => echoInvocation(profileFor(ECHO_RUNTIME_ID, EchoProfileSchema, profile)),
  parseOutput: (run) => Promise.resolve(parseEchoOutput(run)),
  // It talks to no provider and keeps no login: contained, it reaches nothing and is seeded with nothing,
  // and its home variable shows the engine points any runtime's homeEnv names without knowing them.
  containmentNeeds: {
    egress: () => ({ kind: 'none' }),
    gatewayEnv: () => ({}),
    homeEnv: [{ name: 'CONFORMANCE_ECHO_HOME', dir: 'conformance-echo' }],
  },
};

/** `conformance-echo run --format jsonl --verbosity <v> [--model <m>] -`: the prompt on stdin, like the real runtimes. */
function echoInvocation(profile: EchoProfile): Invocation {
  return {
    executable: 'conformance-echo',
    args: [
      'run',
      '--format',
      'jsonl',
      '--verbosity',
      profile.adapter_options.verbosity ?? 'quiet',
      ...(profile.model === null ? [] : ['--model', profile.model]),
      '-',
    ],
  };
}
