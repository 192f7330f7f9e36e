import type { RuntimeContainmentNeeds } from '../adapter-contract/runtime-adapter';
import { gatewayBaseUrl, gatewayRule } from '../containment/provider-egress';

/** Claude Code's API; ANTHROPIC_BASE_URL in the operator's environment (a corporate gateway, the vendor tests' scripted server) replaces it. */
export const CLAUDE_API_URL = 'https://api.anthropic.com';

/**
 * What Claude Code 2.1.328 asks of ANTHROPIC_BASE_URL with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1:
 * only `POST /v1/messages?beta=true` (recordings/claude/*); the gateway forwards nothing else.
 */
const ANTHROPIC_ROUTES = [{ method: 'POST', path: '/v1/messages' }] as const;

/**
 * Contained, Claude Code reaches the provider gateway at ANTHROPIC_BASE_URL inside the sandbox with
 * the attempt's placeholder as its API key (Claude Code 2.1.328 uses ANTHROPIC_API_KEY in `--print`
 * without asking); no login file is seen. Nonessential traffic (telemetry, update checks) is off: it
 * would go to hosts the gateway does not forward to.
 */
export const claudeContainmentNeeds: RuntimeContainmentNeeds = {
  egress: (profile, env) =>
    gatewayRule({ api: 'anthropic-messages', upstreamUrl: env.ANTHROPIC_BASE_URL || CLAUDE_API_URL, setting: 'ANTHROPIC_BASE_URL', routes: ANTHROPIC_ROUTES, model: profile.model }),
  gatewayEnv: (rule, inside) => ({
    ANTHROPIC_BASE_URL: gatewayBaseUrl(rule),
    ANTHROPIC_API_KEY: inside.placeholder,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  }),
  homeEnv: [{ name: 'CLAUDE_CONFIG_DIR', dir: 'claude' }],
};
