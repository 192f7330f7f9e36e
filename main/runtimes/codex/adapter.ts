import { profileFor, type RuntimeAdapter } from '../runtime-adapter';
import { codexInvocation } from './invocation';

export const codexAdapter: RuntimeAdapter = {
  id: 'codex',
  executable: 'codex',
  vendorPackage: { name: '@openai/codex', bin: 'codex' },
  invocation: (profile) => codexInvocation(profileFor('codex', profile)),
};
