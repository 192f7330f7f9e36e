import type { RuntimeContainmentNeeds } from '../adapter-contract/runtime-adapter';
import { LOCAL_PROVIDER_ROUTES, providerEndpointsFrom } from '../local-providers/local-providers';
import { gatewayBaseUrl, gatewayRule } from '../containment/provider-egress';

/** The OpenAI API Codex speaks with an API key; OPENAI_BASE_URL in the operator's environment replaces it upstream. */
export const OPENAI_API_URL = 'https://api.openai.com';

/**
 * The hosts Codex 0.169.0 connects to with an API key (measured, docs/runtime-behaviours.md): the
 * Responses API at api.openai.com, and chatgpt.com for its model list, which the gateway refuses (a
 * refused CONNECT costs six seconds of retries; a refused request, none).
 */
const OPENAI_API_HOSTS = ['api.openai.com', 'chatgpt.com'] as const;

/** What Codex asks of api.openai.com with an API key: the Responses API only (test/fixtures/recordings/codex-cloud). */
const OPENAI_ROUTES = [{ method: 'POST', path: '/v1/responses' }] as const;

/**
 * A local provider profile reaches its provider only through the gateway, wherever the provider is
 * (`CODEX_OSS_BASE_URL` may name another machine): inside, Codex is pointed at the gateway's base URL.
 * Otherwise Codex speaks TLS to OpenAI's host through the inner proxy, and the gateway terminates it
 * with the attempt's CA, which only this sandbox trusts (CODEX_CA_CERTIFICATE); the placeholder is its
 * CODEX_API_KEY (`codex exec` ignores OPENAI_API_KEY in its environment). Citadel runs Codex
 * with `--ignore-user-config`, so the operator's `config.toml` is never read; no login file is seen.
 */
export const codexContainmentNeeds: RuntimeContainmentNeeds = {
  egress: (profile, env) => {
    const provider = profile.local_provider;
    if (provider !== null) {
      return gatewayRule({
        api: 'openai-responses',
        upstreamUrl: providerEndpointsFrom(env)[provider],
        setting: provider === 'ollama' ? 'the Ollama endpoint' : 'the LM Studio endpoint',
        routes: LOCAL_PROVIDER_ROUTES[provider].map((route) => ({ method: route.method, path: route.path })),
        model: profile.model,
      });
    }
    return gatewayRule({
      api: 'openai-responses',
      upstreamUrl: env.OPENAI_BASE_URL?.replace(/\/+$/, '').replace(/\/v1$/, '') || OPENAI_API_URL,
      setting: 'OPENAI_BASE_URL',
      routes: OPENAI_ROUTES,
      model: profile.model,
      inside: { kind: 'tls', hosts: [...OPENAI_API_HOSTS] },
    });
  },
  gatewayEnv: (rule, inside) =>
    rule.inside.kind === 'http'
      ? { CODEX_OSS_BASE_URL: `${gatewayBaseUrl(rule)}/v1` }
      : { CODEX_API_KEY: inside.placeholder, ...(inside.caCertFile === null ? {} : { CODEX_CA_CERTIFICATE: inside.caCertFile }) },
  homeEnv: [{ name: 'CODEX_HOME', dir: 'codex' }],
};
