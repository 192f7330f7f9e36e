import { ClaudeProfileSchema, claudeRuntime } from '../../../shared/executors/runtimes/claude';
import { profileFor, type RuntimeAdapter } from '../adapter-contract/runtime-adapter';
import { claudeContainmentNeeds } from './containment-needs';
import { claudeCredentials } from './credentials';
import { claudeInvocation } from './invocation';
import { parseClaudeResult } from './parse-result';

export const claudeAdapter: RuntimeAdapter = {
  id: 'claude',
  executable: 'claude',
  vendorPackage: { name: '@anthropic-ai/claude-code', bin: 'claude' },
  envAllowlist: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL', 'CLAUDE_CONFIG_DIR', /^CLAUDE_CODE_/],
  credentialEnvNames: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
  profileSchema: ClaudeProfileSchema,
  runtimeOnly: claudeRuntime.runtimeOnly,
  invocation: (profile, containment = 'runtime-only') => claudeInvocation(profileFor('claude', ClaudeProfileSchema, profile), containment),
  containmentNeeds: claudeContainmentNeeds,
  credentials: claudeCredentials,
  parseOutput: (run) => Promise.resolve(parseClaudeResult(run)),
};
