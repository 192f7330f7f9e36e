import { bearer, fromEnvKeys, type EnvKey } from '../credentials/env-keys';
import type { RuntimeCredentials } from '../credentials/runtime-credentials';

/** Qwen Code's OpenAI-compatible key: a bearer on the chat completions API (recordings/qwen: `authorization: Bearer <key>`). */
const QWEN_ENV_KEYS: readonly EnvKey[] = [{ name: 'OPENAI_API_KEY', kind: 'env_api_key', headers: bearer }];

/**
 * Only the environment's OPENAI_API_KEY: Qwen's own OAuth login and its settings-file keys are not
 * read (the runtime home Citadel gives it has neither). A local provider takes no credential.
 */
export const qwenCredentials: RuntimeCredentials = {
  locate(profile, env) {
    if (profile !== null && profile.local_provider !== null) {
      return Promise.resolve({ grant: { kind: 'none' }, facts: { kind: 'none', label: 'a local provider takes no credential', expires_at: null, refreshable: false } });
    }
    return Promise.resolve(fromEnvKeys(QWEN_ENV_KEYS, env));
  },
  missingAdvice: 'set OPENAI_API_KEY (Qwen Code speaks an OpenAI-compatible API)',
  // The shape of an OpenAI project key, given where Qwen Code reads its key.
  placeholder: { prefix: 'sk-proj-', suffix: '' },
};
