import { readFile } from 'node:fs/promises';
import { operatorConfigDir } from '../containment/operator-config-dir';
import { codexAuthMode, CODEX_OAUTH, codexLoginFormat, parseCodexAuth } from '../credentials/codex-login';
import { bearer, fromEnvKeys, type EnvKey } from '../credentials/env-keys';
import { loginFacts } from '../credentials/login-facts';
import type { HostEnv, LocatedCredential, RuntimeCredentials } from '../credentials/runtime-credentials';

/**
 * Codex's environment keys: CODEX_API_KEY (which `codex exec` prefers to any stored login), then
 * OPENAI_API_KEY; both are bearers on the OpenAI API. Either wins over auth.json.
 */
const CODEX_ENV_KEYS: readonly EnvKey[] = [
  { name: 'CODEX_API_KEY', kind: 'env_api_key', headers: bearer },
  { name: 'OPENAI_API_KEY', kind: 'env_api_key', headers: bearer },
];

function tokenUrl(env: HostEnv): string | null {
  const named = env[CODEX_OAUTH.tokenUrlSetting];
  return named && /^https?:\/\//.test(named) ? named : null;
}

/** `$CODEX_HOME/auth.json` (default ~/.codex): its API key, or its ChatGPT login. */
async function fromAuthFile(env: HostEnv): Promise<LocatedCredential | null> {
  const home = operatorConfigDir(env, 'CODEX_HOME', '.codex');
  if (home === null) return null;
  const file = `${home}/auth.json`;
  const text = await readFile(file, 'utf8').catch(() => null);
  const auth = text === null ? null : parseCodexAuth(text);
  if (text === null || auth === null) return null;
  const mode = codexAuthMode(auth);
  if (mode === 'api_key' && auth.OPENAI_API_KEY) {
    return {
      grant: { kind: 'static', headers: bearer(auth.OPENAI_API_KEY) },
      facts: { kind: 'codex_api_key_file', label: `API key in ${file}`, expires_at: null, refreshable: false },
    };
  }
  const login = mode === 'chatgpt' ? codexLoginFormat.parse(text) : null;
  if (login === null) return null;
  return { grant: { kind: 'codex_chatgpt', auth_file: file, token_url: tokenUrl(env) }, facts: loginFacts('chatgpt_login', `ChatGPT login in ${file}`, login) };
}

/** A local provider (Ollama, LM Studio) takes no credential. */
export const codexCredentials: RuntimeCredentials = {
  async locate(profile, env) {
    if (profile !== null && profile.local_provider !== null) {
      return { grant: { kind: 'none' }, facts: { kind: 'none', label: 'a local provider takes no credential', expires_at: null, refreshable: false } };
    }
    return fromEnvKeys(CODEX_ENV_KEYS, env) ?? (await fromAuthFile(env));
  },
  missingAdvice: 'set OPENAI_API_KEY or run `codex login`',
  // The shape of an OpenAI project key, given where Codex reads an API key.
  placeholder: { prefix: 'sk-proj-', suffix: '' },
};
