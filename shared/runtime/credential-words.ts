import type { CredentialFacts, CredentialSourceKind } from './readiness';

/** A short name for a credential's source, for a badge or a column. */
export const CREDENTIAL_KIND_WORDS: Readonly<Record<CredentialSourceKind, string>> = {
  env_api_key: 'API key',
  env_auth_token: 'bearer token',
  env_oauth_token: 'OAuth token',
  claude_login: 'Claude login',
  keychain: 'Keychain',
  codex_api_key_file: 'API key file',
  chatgpt_login: 'ChatGPT login',
  none: 'none needed',
  missing: 'missing',
};

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function span(ms: number): string {
  if (ms >= 2 * DAY) return `${Math.round(ms / DAY)} d`;
  if (ms >= HOUR) return `${Math.round(ms / HOUR)} h`;
  return `${Math.max(1, Math.round(ms / MINUTE))} min`;
}

/** "expires in 3 h" / "expired 20 min ago"; null when the source states no expiry. */
export function expiryWords(expiresAt: string | null, nowMs: number): string | null {
  if (expiresAt === null) return null;
  const left = Date.parse(expiresAt) - nowMs;
  return left > 0 ? `expires in ${span(left)}` : `expired ${span(-left)} ago`;
}

/** One line on a runtime's credential: where it comes from, when it expires, whether the host can renew it. Never a value. */
export function credentialSummary(credential: CredentialFacts, nowMs: number): string {
  if (credential.kind === 'missing' || credential.kind === 'none') return credential.label;
  const expiry = expiryWords(credential.expires_at, nowMs);
  const renewal = credential.refreshable ? 'refreshed on the host when it expires' : 'not refreshable';
  return [credential.label, ...(expiry === null ? [] : [expiry]), renewal].join(', ');
}
