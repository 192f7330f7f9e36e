import type { RuntimeContainmentNeeds } from '../adapter-contract/runtime-adapter';
import { gatewayBaseUrl, gatewayRule } from '../containment/provider-egress';
import { providerEndpointsFrom } from '../local-providers/local-providers';

/** The OpenAI API, Qwen Code's provider with an API key when OPENAI_BASE_URL does not name another. */
export const OPENAI_API_URL = 'https://api.openai.com';

/**
 * What Qwen Code 0.24.4 asks of OPENAI_BASE_URL (requests.jsonl of every recordings/qwen case): streamed chat
 * completions only, for the main agent and its managed-memory extraction request alike; it never
 * listed models. Its other traffic (RUM telemetry to an aliyuncs.com host by CONNECT) is refused.
 */
const CHAT_COMPLETIONS_ROUTES = [{ method: 'POST', path: '/v1/chat/completions' }] as const;

/**
 * Contained, Qwen Code reaches the provider gateway at OPENAI_BASE_URL with the attempt's placeholder
 * as its key, whether the provider is OpenAI (or the operator's OPENAI_BASE_URL: the gateway's
 * upstream is that URL without its `/v1`) or a local Ollama or LM Studio, which speak the same API.
 * QWEN_HOME is the branch's runtime home, so the operator's `~/.qwen` (its login, settings and
 * memories) is never read, and the session file the parser reads the served model from is the
 * branch's own.
 */
export const qwenContainmentNeeds: RuntimeContainmentNeeds = {
  egress: (profile, env) => {
    const provider = profile.local_provider;
    return gatewayRule({
      api: 'openai-chat-completions',
      upstreamUrl:
        provider !== null ? providerEndpointsFrom(env)[provider] : env.OPENAI_BASE_URL?.replace(/\/+$/, '').replace(/\/v1$/, '') || OPENAI_API_URL,
      setting: provider === 'ollama' ? 'the Ollama endpoint' : provider === 'lmstudio' ? 'the LM Studio endpoint' : 'OPENAI_BASE_URL',
      routes: CHAT_COMPLETIONS_ROUTES,
      model: profile.model,
    });
  },
  gatewayEnv: (rule, inside) => {
    const [model] = rule.models ?? [];
    return {
      OPENAI_BASE_URL: `${gatewayBaseUrl(rule)}/v1`,
      OPENAI_API_KEY: inside.placeholder,
      ...(model === undefined ? {} : { OPENAI_MODEL: model }),
    };
  },
  homeEnv: [{ name: 'QWEN_HOME', dir: 'qwen' }],
};
