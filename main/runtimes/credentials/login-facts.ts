import type { CredentialFacts } from '../../../shared/runtime/readiness';
import type { OAuthLogin } from './oauth-refresher';

/** Readiness facts of a refreshable login: its expiry when stated, and whether a refresh token is there to renew it. */
export function loginFacts(kind: CredentialFacts['kind'], label: string, login: OAuthLogin): CredentialFacts {
  return {
    kind,
    label,
    expires_at: login.expiresAtMs === null ? null : new Date(login.expiresAtMs).toISOString(),
    refreshable: login.refreshToken !== null,
  };
}
