import { bearer, fromEnvKeys, type EnvKey } from '../credentials/env-keys';
import type { RuntimeCredentials } from '../credentials/runtime-credentials';

/** OpenCode's built-in `openai` provider reads OPENAI_API_KEY; upstream it is a bearer. */
const OPENCODE_ENV_KEYS: readonly EnvKey[] = [{ name: 'OPENAI_API_KEY', kind: 'env_api_key', headers: bearer }];

/**
 * The credential the gateway presents for an OpenCode profile: OPENAI_API_KEY for OpenAI; a local
 * provider (Ollama, LM Studio) takes none. A key stored by `opencode auth login` is not read: it
 * belongs to OpenCode's own data directory and the gateway needs one the operator named.
 */
export const opencodeCredentials: RuntimeCredentials = {
  locate(profile, env) {
    if (profile !== null && profile.local_provider !== null) {
      return Promise.resolve({ grant: { kind: 'none' }, facts: { kind: 'none', label: 'a local provider takes no credential', expires_at: null, refreshable: false } });
    }
    return Promise.resolve(fromEnvKeys(OPENCODE_ENV_KEYS, env));
  },
  missingAdvice: 'set OPENAI_API_KEY',
  // The shape of an OpenAI project key: OpenCode sends it as the provider's apiKey.
  placeholder: { prefix: 'sk-proj-', suffix: '' },
};
