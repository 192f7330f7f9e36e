import { CopilotProfileSchema, copilotRuntime } from '../../../shared/executors/runtimes/copilot';
import { profileFor, type RuntimeAdapter } from '../adapter-contract/runtime-adapter';
import { copilotContainmentNeeds } from './containment-needs';
import { copilotCredentials } from './credentials';
import { copilotInvocation } from './invocation';
import { copilotActivity } from './parse-events';
import { parseCopilotOutput } from './parse-output';

/**
 * GitHub Copilot CLI (`@github/copilot`) in offline BYOK mode. Its environment names are the BYOK
 * provider's; COPILOT_ALLOW_ALL (approves every tool and trusts the folder) and
 * COPILOT_PROVIDER_API_KEY_COMMAND (a shell command) are never passed.
 */
export const copilotAdapter: RuntimeAdapter = {
  id: 'copilot',
  executable: 'copilot',
  vendorPackage: { name: '@github/copilot', bin: 'copilot' },
  envAllowlist: ['COPILOT_HOME', 'COPILOT_OFFLINE', 'COPILOT_MODEL', 'COPILOT_PROVIDER_BASE_URL', 'COPILOT_PROVIDER_TYPE', 'COPILOT_PROVIDER_API_KEY'],
  credentialEnvNames: ['COPILOT_PROVIDER_API_KEY', 'OPENAI_API_KEY'],
  profileSchema: CopilotProfileSchema,
  runtimeOnly: copilotRuntime.runtimeOnly,
  invocation: (profile) => copilotInvocation(profileFor('copilot', CopilotProfileSchema, profile)),
  containmentNeeds: copilotContainmentNeeds,
  credentials: copilotCredentials,
  parseOutput: (run) => parseCopilotOutput(run),
  liveActivity: copilotActivity,
};
