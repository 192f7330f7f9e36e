import type { RuntimeContainmentNeeds } from '../adapter-contract/runtime-adapter';
import { gatewayBaseUrl, gatewayRule } from '../containment/provider-egress';
import { providerEndpointsFrom } from '../local-providers/local-providers';

/** The OpenAI API, Copilot's BYOK provider when the operator names no other. */
export const OPENAI_API_URL = 'https://api.openai.com';

/**
 * What Copilot CLI 1.0.102 asks of its BYOK provider with COPILOT_OFFLINE=true: only
 * `POST /v1/chat/completions`, streamed with `stream_options.include_usage` (recordings/copilot/*;
 * no `/models` request, no other host).
 */
const CHAT_ROUTES = [{ method: 'POST', path: '/v1/chat/completions' }] as const;

/** An operator's base URL as the gateway's upstream root: the CLIs are given `<root>/v1`. */
function upstreamRoot(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * Contained, Copilot runs in offline BYOK mode against the provider gateway: COPILOT_OFFLINE turns
 * off GitHub authentication, telemetry, web tools and auto-update (without it, it connects to
 * api.github.com: recordings/copilot/not_offline), and its OpenAI-compatible provider is the gateway
 * with the attempt's placeholder as the key. Upstream is the operator's COPILOT_PROVIDER_BASE_URL,
 * else OPENAI_BASE_URL, else OpenAI; for a local provider, its endpoint. COPILOT_HOME puts its
 * config, logs and session state (where parseOutput reads usage) into the branch's runtime home.
 */
export const copilotContainmentNeeds: RuntimeContainmentNeeds = {
  egress: (profile, env) => {
    const provider = profile.local_provider;
    if (provider !== null) {
      return gatewayRule({
        api: 'openai-chat-completions',
        upstreamUrl: providerEndpointsFrom(env)[provider],
        setting: provider === 'ollama' ? 'the Ollama endpoint' : 'the LM Studio endpoint',
        routes: CHAT_ROUTES,
        model: profile.model,
      });
    }
    const setting = env.COPILOT_PROVIDER_BASE_URL ? 'COPILOT_PROVIDER_BASE_URL' : 'OPENAI_BASE_URL';
    return gatewayRule({
      api: 'openai-chat-completions',
      upstreamUrl: upstreamRoot(env.COPILOT_PROVIDER_BASE_URL || env.OPENAI_BASE_URL || OPENAI_API_URL),
      setting,
      routes: CHAT_ROUTES,
      model: profile.model,
    });
  },
  gatewayEnv: (rule, inside) => ({
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_BASE_URL: `${gatewayBaseUrl(rule)}/v1`,
    COPILOT_PROVIDER_API_KEY: inside.placeholder,
  }),
  homeEnv: [{ name: 'COPILOT_HOME', dir: 'copilot' }],
};
