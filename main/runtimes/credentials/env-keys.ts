import type { CredentialSourceKind } from '../../../shared/runtime/readiness';
import type { HostEnv, LocatedCredential } from './runtime-credentials';

/** One environment key a CLI reads, the headers it becomes upstream, and how readiness names it. */
export interface EnvKey {
  readonly name: string;
  readonly kind: Extract<CredentialSourceKind, 'env_api_key' | 'env_auth_token' | 'env_oauth_token'>;
  headers(value: string): Record<string, string>;
}

export const bearer = (value: string): Record<string, string> => ({ authorization: `Bearer ${value}` });

const KIND_WORDS: Record<EnvKey['kind'], string> = {
  env_api_key: 'API key',
  env_auth_token: 'bearer token',
  env_oauth_token: 'long-lived login token',
};

/** The first of `keys` set (non-empty) in `env`, in the order given: the CLI's own precedence. */
export function fromEnvKeys(keys: readonly EnvKey[], env: HostEnv): LocatedCredential | null {
  for (const key of keys) {
    const value = env[key.name]?.trim();
    if (value === undefined || value === '') continue;
    return {
      grant: { kind: 'static', headers: key.headers(value) },
      facts: { kind: key.kind, label: `${KIND_WORDS[key.kind]} from the environment (${key.name})`, expires_at: null, refreshable: false },
    };
  }
  return null;
}
