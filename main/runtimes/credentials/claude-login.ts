import { createHash } from 'node:crypto';
import { userInfo } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { CredentialGrant } from './credential-grant';
import type { KeychainSource } from './keychain';
import { fileLoginStore, keychainLoginStore, LoginStoreError, type LockSpec, type LoginStore } from './login-store';
import type { LoginFormat } from './oauth-refresher';
import type { HostEnv } from './runtime-credentials';

/**
 * Claude Code 2.1.328's subscription login, as read from its bundle (strings of the native binary):
 * the production token endpoint and OAuth client id, the beta header an OAuth bearer needs on the
 * Messages API, the scopes it asks for when the stored login names none, and the Keychain item it
 * keeps the login in on macOS (`Claude Code-credentials`, account `$USER`).
 */
export const CLAUDE_OAUTH = {
  tokenUrl: 'https://platform.claude.com/v1/oauth/token',
  clientId: '9d1c250a-e61b-44d9-88ed-5944d1962f5e',
  betaHeader: 'oauth-2025-04-20',
  defaultScopes: ['user:profile', 'user:inference', 'user:sessions:claude_code', 'user:mcp_servers', 'user:file_upload'],
  keychainService: 'Claude Code-credentials',
  loginAgainAdvice: 'run `claude /login` on this machine and start the fork again',
} as const;

const CREDENTIALS_FILE = '.credentials.json';

// Only the fields Citadel reads; every other field of the document is kept as it was on write-back.
const ClaudeOauthSchema = z.looseObject({
  accessToken: z.string().min(1),
  refreshToken: z.string().nullish(),
  expiresAt: z.number().nullish(),
  scopes: z.array(z.string()).nullish(),
});
const ClaudeCredentialsSchema = z.looseObject({ claudeAiOauth: ClaudeOauthSchema });

/** `$CLAUDE_CONFIG_DIR`, else `~/.claude`: where Claude Code keeps its login file and takes its refresh lock. */
export function claudeConfigDir(env: HostEnv): string | null {
  const named = env.CLAUDE_CONFIG_DIR;
  if (named !== undefined && path.isAbsolute(named)) return path.resolve(named);
  const home = env.HOME;
  return home !== undefined && path.isAbsolute(home) ? path.join(path.resolve(home), '.claude') : null;
}

export function claudeCredentialsFile(configDir: string): string {
  return path.join(configDir, CREDENTIALS_FILE);
}

/**
 * The Keychain item Claude Code 2.1.328 uses: its service gains `-<8 hex of sha256(config dir)>`
 * when CLAUDE_CONFIG_DIR is set; the account is $USER (or the login name), `claude-code-user` when
 * that has characters outside [A-Za-z0-9._-].
 */
export function claudeKeychainItem(env: HostEnv, configDir: string): { service: string; account: string } {
  const suffix = env.CLAUDE_CONFIG_DIR ? `-${createHash('sha256').update(configDir.normalize('NFC')).digest('hex').slice(0, 8)}` : '';
  const user = env.USER || userInfo().username;
  return { service: `${CLAUDE_OAUTH.keychainService}${suffix}`, account: /^[a-zA-Z0-9._-]+$/.test(user) ? user : 'claude-code-user' };
}

/**
 * The two locks Claude Code 2.1.328 takes around a refresh, in its order: `<config dir>/.oauth_refresh.lock`,
 * then the older `<config dir>.lock`. Holding both, the gateway and the operator's own CLI never
 * refresh at once, and the CLI re-reads what the gateway wrote.
 */
export function claudeRefreshLocks(configDir: string): LockSpec[] {
  return [{ lockPath: path.join(configDir, '.oauth_refresh.lock') }, { lockPath: `${configDir}.lock`, resolveSymlinks: true }];
}

/**
 * The store behind a grant. A Keychain grant names no config directory, so it locks the default
 * `~/.claude` (an operator with CLAUDE_CONFIG_DIR and a Keychain login is not excluded from the CLI's lock).
 */
export function claudeLoginStore(source: Extract<CredentialGrant, { kind: 'claude_oauth' }>['source'], keychain: KeychainSource | null, homeDir: string): LoginStore {
  if (source.kind === 'file') return fileLoginStore(source.path, claudeRefreshLocks(path.dirname(source.path)));
  const locks = claudeRefreshLocks(path.join(homeDir, '.claude'));
  if (keychain === null) {
    const absent = () => Promise.reject(new LoginStoreError('unreadable', 'this machine has no Keychain'));
    return { read: absent, write: absent, withLock: (fn) => absent().then(fn) };
  }
  return keychainLoginStore(keychain, source.service, source.account, locks);
}

function parseDocument(text: string): z.infer<typeof ClaudeCredentialsSchema> | null {
  try {
    const parsed = ClaudeCredentialsSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export const claudeLoginFormat: LoginFormat = {
  parse(text) {
    const oauth = parseDocument(text)?.claudeAiOauth;
    return oauth === undefined ? null : { accessToken: oauth.accessToken, refreshToken: oauth.refreshToken || null, expiresAtMs: oauth.expiresAt ?? null };
  },
  refreshRequest(text, login) {
    // What Claude Code sends: the stored scopes, or its defaults when none are stored.
    const stored = parseDocument(text)?.claudeAiOauth.scopes;
    const scopes = stored && stored.length > 0 ? stored : CLAUDE_OAUTH.defaultScopes;
    return { grant_type: 'refresh_token', refresh_token: login.refreshToken ?? '', client_id: CLAUDE_OAUTH.clientId, scope: scopes.join(' ') };
  },
  applyRefresh(text, answer, nowMs) {
    const document = parseDocument(text);
    const { access_token, refresh_token, expires_in, scope } = answer;
    if (document === null || typeof access_token !== 'string' || access_token === '') return null;
    const oauth = {
      ...document.claudeAiOauth,
      accessToken: access_token,
      // Claude Code keeps the old refresh token when the answer carries none.
      ...(typeof refresh_token === 'string' && refresh_token !== '' ? { refreshToken: refresh_token } : {}),
      ...(typeof expires_in === 'number' ? { expiresAt: nowMs + expires_in * 1000 } : {}),
      ...(typeof scope === 'string' && scope.trim() !== '' ? { scopes: scope.trim().split(/\s+/) } : {}),
    };
    return JSON.stringify({ ...document, claudeAiOauth: oauth });
  },
  headers: (_text, login) => ({ authorization: `Bearer ${login.accessToken}`, 'anthropic-beta': CLAUDE_OAUTH.betaHeader }),
};
