import { CitadelError } from '../../../shared/errors';
import type { RuntimeContainmentNeeds } from '../adapter-contract/runtime-adapter';
import { providerEndpointsFrom } from '../local-providers/local-providers';
import { gatewayBaseUrl, gatewayRule } from '../containment/provider-egress';
import { OPENCODE_GATEWAY_PROVIDER } from './invocation';

/** The OpenAI API; OPENAI_BASE_URL in the operator's environment (without its `/v1`) replaces it upstream. */
export const OPENAI_API_URL = 'https://api.openai.com';

/**
 * What OpenCode 1.18.33 asks of an OpenAI-compatible provider (recordings/opencode): a title request
 * and then the agent's requests, all `POST /v1/chat/completions` with the same model, streamed with
 * `stream_options.include_usage`. It never listed models. Its other traffic (the models.opencode.ai
 * catalogue, registry.npmjs.org) goes to hosts the gateway does not forward to: refused, and the run
 * goes on.
 */
const CHAT_ROUTES = [{ method: 'POST', path: '/v1/chat/completions' }] as const;

/**
 * Contained, OpenCode reaches the provider gateway as the one provider of a config Citadel writes
 * into OPENCODE_CONFIG_CONTENT (an `@ai-sdk/openai-compatible` provider whose apiKey is the
 * attempt's placeholder), for OpenAI and for a local provider alike: the gateway forwards to
 * OPENAI_BASE_URL / OpenAI, or to the Ollama or LM Studio endpoint. The rule's model is what the
 * request body carries: the profile's model, without the `citadel/` provider prefix of `-m`.
 * A profile without a model is refused here, before any fork exists: OpenCode's provider config
 * must name the model it may use, and Citadel would have to invent one.
 */
export const opencodeContainmentNeeds: RuntimeContainmentNeeds = {
  egress: (profile, env) => {
    if (profile.model === null) {
      throw new CitadelError('EGRESS_PROVIDER_UNSUPPORTED', `OpenCode profile "${profile.profile_id}" names no model: a contained OpenCode run needs one for its provider config`, {
        details: { profile_id: profile.profile_id },
      });
    }
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
    return gatewayRule({
      api: 'openai-chat-completions',
      upstreamUrl: env.OPENAI_BASE_URL?.replace(/\/+$/, '').replace(/\/v1$/, '') || OPENAI_API_URL,
      setting: 'OPENAI_BASE_URL',
      routes: CHAT_ROUTES,
      model: profile.model,
    });
  },
  gatewayEnv: (rule, inside) => ({ OPENCODE_CONFIG_CONTENT: JSON.stringify(gatewayConfig(`${gatewayBaseUrl(rule)}/v1`, inside.placeholder, rule.models ?? [])) }),
  homeEnv: [],
};

/**
 * OpenCode's config for a contained run: the gateway as its only provider, the profile's model its
 * default, no auto-update and no sharing (both would call OpenCode's own hosts). It grants no
 * permission, and puts back the one `ask` OpenCode 1.18.33 was seen to use: a repository's own
 * `opencode.json` can set `external_directory` (or `*`, or the whole `permission`) to `allow`, which
 * lets `run` write outside the project with no flag; this inline config is read after it and wins
 * (measured with the real CLI), so such a request is asked, and therefore rejected, again.
 */
function gatewayConfig(baseURL: string, apiKey: string, models: readonly string[]): Record<string, unknown> {
  const [model] = models;
  return {
    provider: {
      [OPENCODE_GATEWAY_PROVIDER]: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Citadel provider gateway',
        options: { baseURL, apiKey },
        models: Object.fromEntries(models.map((id) => [id, { name: id }])),
      },
    },
    ...(model === undefined ? {} : { model: `${OPENCODE_GATEWAY_PROVIDER}/${model}` }),
    permission: { external_directory: 'ask' },
    autoupdate: false,
    share: 'disabled',
  };
}
