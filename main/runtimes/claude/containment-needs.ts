import type { RuntimeContainmentNeeds } from '../runtime-adapter';
import { egressForOptionalUrl } from '../containment/provider-egress';
import { operatorConfigDir, seedsFrom } from '../containment/seed-files';

/** Claude Code's API host; ANTHROPIC_BASE_URL (a gateway, or the vendor tests' scripted server) replaces it. */
export const CLAUDE_CLOUD_HOSTS = ['api.anthropic.com'] as const;

/**
 * What Claude Code 2.1.328 asks of ANTHROPIC_BASE_URL with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1:
 * only `POST /v1/messages?beta=true` (recordings/claude/*); a loopback gateway serves nothing else.
 */
const ANTHROPIC_BASE_URL_ROUTES = [{ method: 'POST', path: '/v1/messages' }] as const;

/**
 * Claude Code 2.1.328 (read from its bundle) keeps its login in `$CLAUDE_CONFIG_DIR/.credentials.json`
 * (default `~/.claude`) and its global state in `$CLAUDE_CONFIG_DIR/.claude.json` (default `~/.claude.json`).
 * Only the login is seeded: the state file is rewritten by the CLI, lists every project the operator has
 * opened, and `--print` runs without it (the vendor suite starts every run from an empty home).
 */
export const claudeContainmentNeeds: RuntimeContainmentNeeds = {
  egress: (_profile, env) => egressForOptionalUrl(env.ANTHROPIC_BASE_URL, 'ANTHROPIC_BASE_URL', CLAUDE_CLOUD_HOSTS, ANTHROPIC_BASE_URL_ROUTES),
  homeEnv: [{ name: 'CLAUDE_CONFIG_DIR', dir: 'claude' }],
  seedFiles: (env) => seedsFrom(operatorConfigDir(env, 'CLAUDE_CONFIG_DIR', '.claude'), 'claude', ['.credentials.json']),
};
