import { describe, expect, it } from 'vitest';
import { runtimeTemplate } from '../../../../main/orchestrator/branch-containment';
import { BUILTIN_ADAPTERS } from '../../../../main/runtimes/registry';
import type { RuntimeProfile } from '../../../../shared/executors/runtime-profile';

const CLAUDE: RuntimeProfile = { profile_id: 'claude-a', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: {} };

// An attacker's read (issue 28): Claude's allowlist passes every CLAUDE_CODE_* name, and Claude Code reads secrets
// under that prefix besides CLAUDE_CODE_OAUTH_TOKEN; an agent in the sandbox reads its own environment.
describe('a gateway run environment', () => {
  it('holds no credential-shaped variable of the operator, only the behaviour settings', () => {
    const env = {
      HOME: '/home/op',
      CLAUDE_CODE_OAUTH_REFRESH_TOKEN: 'sk-ant-ort01-secret',
      CLAUDE_CODE_SESSION_ACCESS_TOKEN: 'secret',
      CLAUDE_CODE_OAUTH_CLIENT_SECRET: 'secret',
      CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: 'secret',
      CLAUDE_CODE_MAX_OUTPUT_TOKENS: '4096',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
    const names = runtimeTemplate('bubblewrap', BUILTIN_ADAPTERS.claude, CLAUDE, env).env_names;
    for (const secret of ['CLAUDE_CODE_OAUTH_REFRESH_TOKEN', 'CLAUDE_CODE_SESSION_ACCESS_TOKEN', 'CLAUDE_CODE_OAUTH_CLIENT_SECRET', 'CLAUDE_CODE_CLIENT_KEY_PASSPHRASE']) expect(names).not.toContain(secret);
    expect(names).toEqual(expect.arrayContaining(['CLAUDE_CODE_MAX_OUTPUT_TOKENS', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC']));
  });
});
