import type { RuntimeContainmentNeeds } from '../adapter-contract/runtime-adapter';
import { gatewayBaseUrl, gatewayRule } from '../containment/provider-egress';

/** The Gemini API; GOOGLE_GEMINI_BASE_URL in the operator's environment replaces it upstream. */
export const GEMINI_API_URL = 'https://generativelanguage.googleapis.com';

/**
 * What Gemini CLI 0.61.0 asks of the Gemini API (recordings/gemini/*): only streamed generation,
 * `?alt=sse`; `:generateContent` and `:countTokens` were never called. The gateway forwards nothing else.
 */
const GEMINI_ROUTES = [{ method: 'POST', path: '/v1beta/models/{model}:streamGenerateContent' }] as const;

/** Gemini CLI's home (its `~`, holding `.gemini/`) inside the runtime home. */
const GEMINI_HOME_DIR = 'gemini';

/**
 * With GOOGLE_GEMINI_BASE_URL set Gemini CLI takes its auth type to be a gateway, which headless mode
 * refuses (exit 41, recordings/gemini/no_auth_settings) unless the settings select the API key. Usage
 * statistics off: otherwise every run tries Clearcut at play.googleapis.com, which only the sandbox
 * stops (measured: with this file, the scripted server saw no CONNECT at all).
 */
export const GEMINI_SETTINGS = { security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } } as const;

/**
 * Contained, Gemini CLI reaches the provider gateway at GOOGLE_GEMINI_BASE_URL with the attempt's
 * placeholder as its GEMINI_API_KEY. GEMINI_CLI_HOME points its `~/.gemini` (settings, sessions,
 * trust) into the runtime home, where Citadel writes the settings it needs; the operator's own
 * `~/.gemini` is never read or written.
 */
export const geminiContainmentNeeds: RuntimeContainmentNeeds = {
  egress: (profile, env) =>
    gatewayRule({
      api: 'gemini-generate-content',
      upstreamUrl: env.GOOGLE_GEMINI_BASE_URL || GEMINI_API_URL,
      setting: 'GOOGLE_GEMINI_BASE_URL',
      routes: GEMINI_ROUTES,
      model: profile.model,
    }),
  gatewayEnv: (rule, inside) => ({ GOOGLE_GEMINI_BASE_URL: gatewayBaseUrl(rule), GEMINI_API_KEY: inside.placeholder }),
  homeEnv: [{ name: 'GEMINI_CLI_HOME', dir: GEMINI_HOME_DIR }],
  homeFiles: [{ path: [GEMINI_HOME_DIR, '.gemini', 'settings.json'], content: `${JSON.stringify(GEMINI_SETTINGS, null, 2)}\n` }],
};
