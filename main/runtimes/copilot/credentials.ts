import { bearer, fromEnvKeys, type EnvKey } from '../credentials/env-keys';
import type { RuntimeCredentials } from '../credentials/runtime-credentials';

/**
 * Copilot's BYOK key: COPILOT_PROVIDER_API_KEY (its own name), else OPENAI_API_KEY; both are bearers
 * on an OpenAI-compatible API. Citadel runs Copilot only in offline BYOK mode, so a GitHub login
 * (COPILOT_GITHUB_TOKEN, GH_TOKEN, a stored `copilot login`) is never a credential here.
 */
const COPILOT_ENV_KEYS: readonly EnvKey[] = [
  { name: 'COPILOT_PROVIDER_API_KEY', kind: 'env_api_key', headers: bearer },
  { name: 'OPENAI_API_KEY', kind: 'env_api_key', headers: bearer },
];

/** A local provider (Ollama, LM Studio) takes no credential. */
export const copilotCredentials: RuntimeCredentials = {
  async locate(profile, env) {
    if (profile !== null && profile.local_provider !== null) {
      return { grant: { kind: 'none' }, facts: { kind: 'none', label: 'a local provider takes no credential', expires_at: null, refreshable: false } };
    }
    return fromEnvKeys(COPILOT_ENV_KEYS, env);
  },
  missingAdvice: 'set COPILOT_PROVIDER_API_KEY (or OPENAI_API_KEY) for an OpenAI-compatible provider',
  // An OpenAI project key's shape. Copilot redacts its key's value wherever it prints it, so the placeholder must be long and random: a short one would mangle ordinary output.
  placeholder: { prefix: 'sk-proj-', suffix: '' },
};
