import { isCitadelError } from '../../../shared/errors';
import { refreshFailed } from './credential-errors';
import { LoginStoreError, type LoginStore } from './login-store';
import { postTokenRequest } from './token-endpoint';
import type { UpstreamCredential } from './upstream-credential';

/** A login as a refresher needs it; expiry in ms since the epoch, null when the document states none. */
export interface OAuthLogin {
  readonly accessToken: string;
  readonly refreshToken: string | null;
  readonly expiresAtMs: number | null;
}

/** One vendor's login document: how to read it, ask for a refresh, store the answer, and form headers. */
export interface LoginFormat {
  /** The login in the document's text; null when it holds none (logged out, another auth mode). */
  parse(text: string): OAuthLogin | null;
  refreshRequest(text: string, login: OAuthLogin): Record<string, string>;
  /** The document after a refresh, every other field kept; null when the answer lacks an access token. */
  applyRefresh(text: string, answer: Record<string, unknown>, nowMs: number): string | null;
  /** The upstream headers for the document's current token. */
  headers(text: string, login: OAuthLogin): Record<string, string>;
}

export interface RefresherOptions {
  readonly store: LoginStore;
  readonly format: LoginFormat;
  readonly tokenUrl: string;
  readonly now: () => number;
  /** Refresh this long before the stated expiry, so a request does not leave with a token about to lapse. */
  readonly marginMs: number;
  /** Plain words on what to do when the login cannot be used, e.g. "run `claude /login` … and start the fork again". */
  readonly loginAgainAdvice: string;
}

interface Current {
  readonly text: string;
  readonly login: OAuthLogin;
}

/**
 * A login the gateway can use for the life of a branch: the access token is kept while it is fresh
 * and read again from the store when it is not (the operator's own CLI may have refreshed it
 * meanwhile), and refreshed here on the host when it is about to expire or after the provider
 * answered 401. A refresh runs once per process at a time, under the store's cross-process lock, and
 * re-reads the store first: another process (the operator's CLI, another branch's gateway) may have
 * refreshed already, and a refresh token that rotates may be spent only once.
 */
export function refreshingCredential(options: RefresherOptions): UpstreamCredential {
  const { store, format, now, marginMs, loginAgainAdvice } = options;
  let inFlight: Promise<Current> | null = null;
  // What was last read or refreshed; a Keychain read may prompt the operator, so it is not repeated per request.
  let held: Current | null = null;

  const fresh = (login: OAuthLogin) => login.expiresAtMs === null || login.expiresAtMs - now() > marginMs;

  async function current(): Promise<Current> {
    const text = await store.read();
    const login = text === null ? null : format.parse(text);
    if (text === null || login === null) throw refreshFailed('unreadable', 'The login the gateway uses is gone from this machine', loginAgainAdvice);
    return { text, login };
  }

  async function refreshUnderLock(staleToken: string): Promise<Current> {
    return store.withLock(async () => {
      const seen = await current();
      if (seen.login.accessToken !== staleToken && fresh(seen.login)) return seen;
      if (seen.login.refreshToken === null) throw refreshFailed('no_refresh_token', 'The login has expired and cannot be renewed here', loginAgainAdvice);
      const answer = await postTokenRequest(options.tokenUrl, format.refreshRequest(seen.text, seen.login));
      if (!answer.ok) {
        const what =
          answer.reason === 'unreachable'
            ? `The provider's token endpoint did not renew the login (${answer.status === null ? 'no answer' : `HTTP ${answer.status}`})`
            : `The provider refused to renew the login (HTTP ${String(answer.status)})`;
        throw refreshFailed(answer.reason, what, loginAgainAdvice);
      }
      const text = format.applyRefresh(seen.text, answer.body, now());
      const login = text === null ? null : format.parse(text);
      if (text === null || login === null) throw refreshFailed('malformed', 'The provider answered the renewal without a usable token', loginAgainAdvice);
      await store.write(text);
      return { text, login };
    });
  }

  function refresh(staleToken: string): Promise<Current> {
    inFlight ??= refreshUnderLock(staleToken)
      .catch((error: unknown) => {
        if (isCitadelError(error)) throw error;
        const reason = error instanceof LoginStoreError ? error.reason : 'unreadable';
        throw refreshFailed(reason, 'The login could not be renewed on this machine', loginAgainAdvice, error);
      })
      .then((renewed) => (held = renewed))
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  }

  return {
    async headers() {
      let seen = held !== null && fresh(held.login) ? held : await current().catch(mapStoreError);
      if (!fresh(seen.login)) seen = await refresh(seen.login.accessToken);
      held = seen;
      return format.headers(seen.text, seen.login);
    },
    async refreshAfterUnauthorized() {
      const stale = (held ?? (await current().catch(mapStoreError))).login.accessToken;
      const renewed = await refresh(stale);
      return renewed.login.accessToken !== stale;
    },
  };

  function mapStoreError(error: unknown): never {
    if (isCitadelError(error)) throw error;
    throw refreshFailed(error instanceof LoginStoreError ? error.reason : 'unreadable', 'The login could not be read on this machine', loginAgainAdvice, error);
  }
}
