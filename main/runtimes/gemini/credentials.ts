import { fromEnvKeys, type EnvKey } from '../credentials/env-keys';
import type { RuntimeCredentials } from '../credentials/runtime-credentials';

/** Gemini CLI's Gemini API key, sent upstream as `x-goog-api-key` (recordings/gemini/<case>/requests.jsonl). */
const GEMINI_ENV_KEYS: readonly EnvKey[] = [{ name: 'GEMINI_API_KEY', kind: 'env_api_key', headers: (value) => ({ 'x-goog-api-key': value }) }];

/**
 * Only the environment's key: Citadel runs Gemini CLI with the Gemini API key auth type, and a
 * Google login or Vertex AI credential is not one the gateway can hand on. No local provider.
 */
export const geminiCredentials: RuntimeCredentials = {
  locate: (_profile, env) => Promise.resolve(fromEnvKeys(GEMINI_ENV_KEYS, env)),
  missingAdvice: 'set GEMINI_API_KEY',
  // The shape of a Google API key, where Gemini CLI reads one.
  placeholder: { prefix: 'AIza', suffix: '' },
};
