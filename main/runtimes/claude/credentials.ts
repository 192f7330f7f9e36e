import { readFile } from 'node:fs/promises';
import { claudeConfigDir, claudeCredentialsFile, claudeKeychainItem, claudeLoginFormat, CLAUDE_OAUTH } from '../credentials/claude-login';
import { bearer, fromEnvKeys, type EnvKey } from '../credentials/env-keys';
import { loginFacts } from '../credentials/login-facts';
import type { CredentialDeps, HostEnv, LocatedCredential, RuntimeCredentials } from '../credentials/runtime-credentials';

/**
 * Claude Code's environment keys in its documented precedence: ANTHROPIC_AUTH_TOKEN (a bearer, for
 * gateways), ANTHROPIC_API_KEY (`x-api-key`), then CLAUDE_CODE_OAUTH_TOKEN (`claude setup-token`'s
 * long-lived OAuth token: a bearer with the OAuth beta header, never refreshed). Any of them wins
 * over a stored login, as in the CLI.
 */
const CLAUDE_ENV_KEYS: readonly EnvKey[] = [
  { name: 'ANTHROPIC_AUTH_TOKEN', kind: 'env_auth_token', headers: bearer },
  { name: 'ANTHROPIC_API_KEY', kind: 'env_api_key', headers: (value) => ({ 'x-api-key': value }) },
  { name: 'CLAUDE_CODE_OAUTH_TOKEN', kind: 'env_oauth_token', headers: (value) => ({ ...bearer(value), 'anthropic-beta': CLAUDE_OAUTH.betaHeader }) },
];

/**
 * The token endpoint the host refreshes at: Claude Code's own CLAUDE_CODE_CUSTOM_OAUTH_URL (it
 * appends `/v1/oauth/token`) when the operator's environment sets it, as the vendor tests' scripted
 * endpoint does; else the vendor's.
 */
function tokenUrl(env: HostEnv): string | null {
  const base = env.CLAUDE_CODE_CUSTOM_OAUTH_URL?.replace(/\/+$/, '');
  return base && /^https?:\/\//.test(base) ? `${base}/v1/oauth/token` : null;
}

/**
 * Only the item's presence is checked here: its secret belongs to Claude Code, and reading it may ask
 * the operator to allow access, so the gateway reads it once, when it first needs it. Its expiry is
 * therefore not shown; a Claude Code login carries a refresh token.
 */
async function fromKeychain(env: HostEnv, configDir: string, deps: CredentialDeps): Promise<LocatedCredential | null> {
  if (deps.keychain === null) return null;
  const item = claudeKeychainItem(env, configDir);
  if (!(await deps.keychain.has(item.service, item.account).catch(() => false))) return null;
  return {
    grant: { kind: 'claude_oauth', source: { kind: 'keychain', ...item }, token_url: tokenUrl(env) },
    facts: { kind: 'keychain', label: `Claude login in the macOS Keychain (${item.service})`, expires_at: null, refreshable: true },
  };
}

async function fromFile(env: HostEnv, configDir: string): Promise<LocatedCredential | null> {
  const file = claudeCredentialsFile(configDir);
  const text = await readFile(file, 'utf8').catch(() => null);
  const login = text === null ? null : claudeLoginFormat.parse(text);
  if (login === null) return null;
  return {
    grant: { kind: 'claude_oauth', source: { kind: 'file', path: file }, token_url: tokenUrl(env) },
    facts: loginFacts('claude_login', `Claude login in ${file}`, login),
  };
}

/** On macOS Claude Code keeps its login in the Keychain and falls back to the file; elsewhere only the file. */
export const claudeCredentials: RuntimeCredentials = {
  async locate(_profile, env, deps) {
    const fromEnv = fromEnvKeys(CLAUDE_ENV_KEYS, env);
    if (fromEnv !== null) return fromEnv;
    const configDir = claudeConfigDir(env);
    if (configDir === null) return null;
    return (await fromKeychain(env, configDir, deps)) ?? (await fromFile(env, configDir));
  },
  missingAdvice: 'set ANTHROPIC_API_KEY or run `claude /login`',
  // Claude Code takes ANTHROPIC_API_KEY in `--print` without asking; the shape of a Console API key.
  placeholder: { prefix: 'sk-ant-api03-', suffix: 'AA' },
};
