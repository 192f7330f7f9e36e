import { QwenProfileSchema, qwenRuntime } from '../../../shared/executors/runtimes/qwen';
import { profileFor, type RuntimeAdapter } from '../adapter-contract/runtime-adapter';
import { qwenContainmentNeeds } from './containment-needs';
import { qwenCredentials } from './credentials';
import { qwenInvocation } from './invocation';
import { qwenActivity } from './parse-events';
import { parseQwenOutput } from './parse-output';

export const qwenAdapter: RuntimeAdapter = {
  id: 'qwen',
  executable: 'qwen',
  vendorPackage: { name: '@qwen-code/qwen-code', bin: 'qwen' },
  envAllowlist: ['QWEN_HOME', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL'],
  credentialEnvNames: ['OPENAI_API_KEY'],
  profileSchema: QwenProfileSchema,
  runtimeOnly: qwenRuntime.runtimeOnly,
  invocation: (profile, containment = 'runtime-only') => qwenInvocation(profileFor('qwen', QwenProfileSchema, profile), containment),
  containmentNeeds: qwenContainmentNeeds,
  credentials: qwenCredentials,
  parseOutput: (run) => parseQwenOutput(run),
  liveActivity: qwenActivity,
};
