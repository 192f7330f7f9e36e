import { GeminiProfileSchema, geminiRuntime } from '../../../shared/executors/runtimes/gemini';
import { profileFor, type RuntimeAdapter } from '../adapter-contract/runtime-adapter';
import { geminiContainmentNeeds } from './containment-needs';
import { geminiCredentials } from './credentials';
import { geminiInvocation } from './invocation';
import { geminiActivity } from './live-activity';
import { parseGeminiOutput } from './parse-output';

export const geminiAdapter: RuntimeAdapter = {
  id: 'gemini',
  executable: 'gemini',
  vendorPackage: { name: '@google/gemini-cli', bin: 'gemini' },
  envAllowlist: ['GEMINI_API_KEY', 'GOOGLE_GEMINI_BASE_URL', 'GEMINI_CLI_HOME'],
  credentialEnvNames: ['GEMINI_API_KEY'],
  profileSchema: GeminiProfileSchema,
  runtimeOnly: geminiRuntime.runtimeOnly,
  invocation: (profile) => geminiInvocation(profileFor('gemini', GeminiProfileSchema, profile)),
  containmentNeeds: geminiContainmentNeeds,
  credentials: geminiCredentials,
  parseOutput: (run) => Promise.resolve(parseGeminiOutput(run)),
  liveActivity: geminiActivity,
};
