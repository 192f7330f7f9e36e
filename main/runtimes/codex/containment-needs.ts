import type { RuntimeContainmentNeeds } from '../runtime-adapter';
import { providerEndpointsFrom } from '../local-providers';
import { egressForOptionalUrl, egressForProviderUrl } from '../containment/provider-egress';
import { operatorConfigDir, seedsFrom } from '../containment/seed-files';

/** What Codex 0.169.0 reaches with an OpenAI login: the API, and ChatGPT's backend and login hosts. */
export const CODEX_CLOUD_HOSTS = ['api.openai.com', 'chatgpt.com', 'auth.openai.com'] as const;

/**
 * A local provider profile reaches only that provider (where Codex itself would look for it);
 * otherwise the OpenAI hosts, or a loopback OPENAI_BASE_URL. Only `auth.json` is seeded: Citadel runs
 * Codex with `--ignore-user-config`, so the operator's `config.toml` is never read.
 */
export const codexContainmentNeeds: RuntimeContainmentNeeds = {
  egress: (profile, env) => {
    const provider = profile.local_provider;
    if (provider !== null) return egressForProviderUrl(providerEndpointsFrom(env)[provider], provider === 'ollama' ? 'the Ollama endpoint' : 'the LM Studio endpoint');
    return egressForOptionalUrl(env.OPENAI_BASE_URL, 'OPENAI_BASE_URL', CODEX_CLOUD_HOSTS);
  },
  homeEnv: [{ name: 'CODEX_HOME', dir: 'codex' }],
  seedFiles: (env) => seedsFrom(operatorConfigDir(env, 'CODEX_HOME', '.codex'), 'codex', ['auth.json']),
};
