import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import type { CredentialFacts } from '../../../shared/runtime/readiness';
import type { CredentialGrant } from './credential-grant';
import { platformKeychain, type KeychainSource } from './keychain';
import type { PlaceholderShape } from './placeholder';

export type HostEnv = Readonly<Record<string, string | undefined>>;

/** What reading the operator's credential sources may use; injectable so tests need no Mac and no real login. */
export interface CredentialDeps {
  /** The macOS Keychain, or null where there is none (any other platform). */
  readonly keychain: KeychainSource | null;
  readonly now: () => number;
}

/** This machine's sources: its Keychain on macOS, the real clock. */
export function hostCredentialDeps(): CredentialDeps {
  return { keychain: platformKeychain(), now: Date.now };
}

/** A credential found on the host: what the gateway is handed, and what readiness may show of it. */
export interface LocatedCredential {
  readonly grant: CredentialGrant;
  readonly facts: CredentialFacts;
}

/**
 * A runtime's knowledge of its own credentials (spec: adapters-and-safety.md), so that launch and
 * readiness never compare runtime ids: where the CLI keeps its login, in the CLI's own precedence,
 * and the placeholder the sandbox is given instead.
 */
export interface RuntimeCredentials {
  /**
   * The credential for a profile's provider (null profile: the runtime's cloud provider, as readiness
   * asks), `none` for a provider that takes none, null when the operator has none on this machine.
   */
  locate(profile: RuntimeProfile | null, env: HostEnv, deps: CredentialDeps): Promise<LocatedCredential | null>;
  /** What the operator does when none is found, e.g. "set ANTHROPIC_API_KEY or run `claude /login`". */
  readonly missingAdvice: string;
  readonly placeholder: PlaceholderShape;
}
