import { profileFor, type RuntimeAdapter } from '../runtime-adapter';
import { claudeInvocation } from './invocation';

export const claudeAdapter: RuntimeAdapter = {
  id: 'claude',
  executable: 'claude',
  vendorPackage: { name: '@anthropic-ai/claude-code', bin: 'claude' },
  invocation: (profile) => claudeInvocation(profileFor('claude', profile)),
};
