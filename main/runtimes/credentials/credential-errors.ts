import { CitadelError } from '../../../shared/errors';

/** Why the host could not produce a usable login for the gateway; never carries a token. */
export type RefreshFailure = 'rejected' | 'unreachable' | 'malformed' | 'no_refresh_token' | 'unreadable' | 'write_failed' | 'lock_busy';

/**
 * The typed error a gateway's credential throws: the gateway refuses the request as
 * `credential_unavailable` and the branch ends RUNTIME_AUTH_FAILED with this message.
 */
export function refreshFailed(reason: RefreshFailure, what: string, loginAgainAdvice: string, cause?: unknown): CitadelError {
  return new CitadelError('CREDENTIAL_REFRESH_FAILED', `${what}: ${loginAgainAdvice}`, {
    details: { reason },
    ...(cause === undefined ? {} : { cause }),
  });
}
