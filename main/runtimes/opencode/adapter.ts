import { OpencodeProfileSchema, opencodeRuntime } from '../../../shared/executors/runtimes/opencode';
import { profileFor, type RuntimeAdapter } from '../adapter-contract/runtime-adapter';
import { opencodeContainmentNeeds } from './containment-needs';
import { opencodeCredentials } from './credentials';
import { opencodeInvocation } from './invocation';
import { opencodeActivity, parseOpencodeOutput } from './parse-output';

/**
 * OpenCode (`opencode-ai`, a Bun-compiled binary). Only OPENAI_API_KEY passes from the operator's
 * environment: OpenCode's own config variables (OPENCODE_CONFIG, OPENCODE_CONFIG_CONTENT) can grant
 * permissions, so a runtime-only run reads the operator's config files only, and a contained run
 * only the config Citadel writes (containment-needs.ts).
 */
export const opencodeAdapter: RuntimeAdapter = {
  id: 'opencode',
  executable: 'opencode',
  vendorPackage: { name: 'opencode-ai', bin: 'opencode' },
  envAllowlist: ['OPENAI_API_KEY'],
  credentialEnvNames: ['OPENAI_API_KEY'],
  profileSchema: OpencodeProfileSchema,
  runtimeOnly: opencodeRuntime.runtimeOnly,
  invocation: (profile, containment = 'runtime-only') => opencodeInvocation(profileFor('opencode', OpencodeProfileSchema, profile), containment),
  containmentNeeds: opencodeContainmentNeeds,
  credentials: opencodeCredentials,
  parseOutput: (run) => Promise.resolve(parseOpencodeOutput(run)),
  liveActivity: opencodeActivity,
};
