import { CodexProfileSchema, codexRuntime } from '../../../shared/executors/runtimes/codex';
import { profileFor, type RuntimeAdapter } from '../adapter-contract/runtime-adapter';
import { codexContainmentNeeds } from './containment-needs';
import { codexCredentials } from './credentials';
import { codexInvocation } from './invocation';
import { codexActivity } from './parse-events';
import { parseCodexOutput } from './parse-output';

export const codexAdapter: RuntimeAdapter = {
  id: 'codex',
  executable: 'codex',
  vendorPackage: { name: '@openai/codex', bin: 'codex' },
  envAllowlist: ['CODEX_HOME', 'OPENAI_API_KEY', 'CODEX_API_KEY', 'OPENAI_BASE_URL', 'CODEX_OSS_BASE_URL', 'CODEX_OSS_PORT'],
  credentialEnvNames: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  profileSchema: CodexProfileSchema,
  runtimeOnly: codexRuntime.runtimeOnly,
  invocation: (profile) => codexInvocation(profileFor('codex', CodexProfileSchema, profile)),
  containmentNeeds: codexContainmentNeeds,
  credentials: codexCredentials,
  parseOutput: (run) => parseCodexOutput(run),
  liveActivity: codexActivity,
};
