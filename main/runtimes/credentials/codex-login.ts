import { z } from 'zod';
import { fileLoginStore, type LoginStore } from './login-store';
import type { LoginFormat } from './oauth-refresher';

/**
 * Codex's ChatGPT login, as codex-rs `login/src/auth/manager.rs` and `storage.rs` do it (read from the
 * openai/codex source; the client id and token URL also appear in the Codex 0.169.0 binary): a JSON
 * refresh-token grant with its client id, an answer of `{id_token?, access_token?, refresh_token?}`,
 * tokens written back into `auth.json` with `last_refresh`, mode 0600. The upstream request carries
 * the access token as a bearer and the account id as `chatgpt-account-id`.
 */
export const CODEX_OAUTH = {
  tokenUrl: 'https://auth.openai.com/oauth/token',
  clientId: 'app_EMoamEEZ73f0CkXaXp7hrann',
  /** The environment setting Codex itself reads for another token endpoint (its tests'); the host honours it likewise. */
  tokenUrlSetting: 'CODEX_REFRESH_TOKEN_URL_OVERRIDE',
  loginAgainAdvice: 'run `codex login` on this machine and start the fork again',
} as const;

const TokensSchema = z.looseObject({
  id_token: z.unknown().optional(),
  access_token: z.string().min(1),
  refresh_token: z.string().nullish(),
  account_id: z.string().nullish(),
});

// Only the fields Citadel reads; the rest of auth.json is kept as it was on write-back.
export const CodexAuthSchema = z.looseObject({
  auth_mode: z.string().nullish(),
  OPENAI_API_KEY: z.string().nullish(),
  tokens: TokensSchema.nullish(),
  last_refresh: z.string().nullish(),
});
export type CodexAuth = z.infer<typeof CodexAuthSchema>;

export function parseCodexAuth(text: string): CodexAuth | null {
  try {
    const parsed = CodexAuthSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Which login an auth.json holds, as Codex chooses: its `auth_mode` when stated, else the API key
 * when one is stored, else the ChatGPT tokens.
 */
export function codexAuthMode(auth: CodexAuth): 'api_key' | 'chatgpt' | null {
  const key = auth.OPENAI_API_KEY ? 'api_key' : null;
  const chatgpt = auth.tokens ? 'chatgpt' : null;
  if (auth.auth_mode === 'apikey') return key;
  if (auth.auth_mode === 'chatgpt') return chatgpt;
  return key ?? chatgpt;
}

/** The `exp` of a JWT access token in ms, unverified (the provider verifies it); null when it is not a JWT. */
export function jwtExpiryMs(token: string): number | null {
  const payload = token.split('.')[1];
  if (payload === undefined) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const exp = typeof claims === 'object' && claims !== null ? (claims as { exp?: unknown }).exp : undefined;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : null;
  } catch {
    return null;
  }
}

// Codex keeps no lock of its own on auth.json; this one keeps Citadel's gateways from refreshing at once.
export function codexLoginStore(authFile: string): LoginStore {
  return fileLoginStore(authFile, [{ lockPath: `${authFile}.lock` }]);
}

export const codexLoginFormat: LoginFormat = {
  parse(text) {
    const auth = parseCodexAuth(text);
    const tokens = auth?.tokens;
    if (auth === null || !tokens || codexAuthMode(auth) !== 'chatgpt') return null;
    return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token || null, expiresAtMs: jwtExpiryMs(tokens.access_token) };
  },
  refreshRequest: (_text, login) => ({ client_id: CODEX_OAUTH.clientId, grant_type: 'refresh_token', refresh_token: login.refreshToken ?? '' }),
  applyRefresh(text, answer, nowMs) {
    const auth = parseCodexAuth(text);
    if (auth === null || !auth.tokens || typeof answer.access_token !== 'string' || answer.access_token === '') return null;
    const pick = (name: string) => (typeof answer[name] === 'string' && answer[name] !== '' ? { [name]: answer[name] } : {});
    const tokens = { ...auth.tokens, ...pick('id_token'), ...pick('access_token'), ...pick('refresh_token') };
    // Codex writes pretty JSON; keeping its layout keeps the operator's diffs of the file small.
    return `${JSON.stringify({ ...auth, tokens, last_refresh: new Date(nowMs).toISOString() }, null, 2)}`;
  },
  headers(text, login) {
    const accountId = parseCodexAuth(text)?.tokens?.account_id;
    return { authorization: `Bearer ${login.accessToken}`, ...(accountId ? { 'chatgpt-account-id': accountId } : {}) };
  },
};
