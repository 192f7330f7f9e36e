import type { RuntimeContainmentNeeds } from '../runtime-adapter';
import { LOCAL_PROVIDER_ROUTES, providerEndpointsFrom } from '../local-providers';
import { egressForOptionalUrl, egressForProviderUrl } from '../containment/provider-egress';
import { operatorConfigDir, seedsFrom } from '../containment/seed-files';

/** What Codex 0.169.0 reaches with an OpenAI login: the API, and ChatGPT's backend and login hosts. */
export const CODEX_CLOUD_HOSTS = ['api.openai.com', 'chatgpt.com', 'auth.openai.com'] as const;

/**
 * The Responses API below a loopback OPENAI_BASE_URL. Not recorded: measured on 2026-12-01, Codex
 * 0.169.0 with an API key and OPENAI_BASE_URL=http://127.0.0.1:<port>/v1 never called that URL
 * (it looked up the OpenAI hosts instead), so this is the API Codex would speak there, not a trace.
 */
const OPENAI_BASE_URL_ROUTES = [
  { method: 'GET', path: '/models' },
  { method: 'POST', path: '/responses' },
] as const;

/**
 * A local provider profile reaches only that provider (where Codex itself would look for it);
 * otherwise the OpenAI hosts, or a loopback OPENAI_BASE_URL. Only `auth.json` is seeded: Citadel runs
 * Codex with `--ignore-user-config`, so the operator's `config.toml` is never read.
 */
export const codexContainmentNeeds: RuntimeContainmentNeeds = {
  egress: (profile, env) => {
    const provider = profile.local_provider;
    if (provider !== null) {
      return egressForProviderUrl(providerEndpointsFrom(env)[provider], provider === 'ollama' ? 'the Ollama endpoint' : 'the LM Studio endpoint', LOCAL_PROVIDER_ROUTES[provider]);
    }
    return egressForOptionalUrl(env.OPENAI_BASE_URL, 'OPENAI_BASE_URL', CODEX_CLOUD_HOSTS, OPENAI_BASE_URL_ROUTES);
  },
  homeEnv: [{ name: 'CODEX_HOME', dir: 'codex' }],
  seedFiles: (env) => seedsFrom(operatorConfigDir(env, 'CODEX_HOME', '.codex'), 'codex', ['auth.json']),
};
