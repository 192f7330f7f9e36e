import { CitadelError } from '../../../shared/errors';
import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import type { CredentialFacts } from '../../../shared/runtime/readiness';
import type { CredentialGrant } from './credential-grant';
import type { CredentialDeps, HostEnv, RuntimeCredentials } from './runtime-credentials';

/**
 * The grant a branch's gateway is handed, resolved on the host at launch. A runtime that needs a
 * credential and has none is RUNTIME_AUTH_MISSING before anything runs, with what to do.
 */
export async function resolveGrant(runtime: string, credentials: RuntimeCredentials, profile: RuntimeProfile, env: HostEnv, deps: CredentialDeps): Promise<CredentialGrant> {
  const located = await credentials.locate(profile, env, deps);
  if (located === null) {
    throw new CitadelError('RUNTIME_AUTH_MISSING', `No credential for ${runtime} was found on this machine: ${credentials.missingAdvice}.`, { details: { runtime } });
  }
  return located.grant;
}

/** What readiness and settings show of a runtime's cloud credential: its kind and state, never a value. */
export async function credentialFacts(credentials: RuntimeCredentials, env: HostEnv, deps: CredentialDeps): Promise<CredentialFacts> {
  try {
    const located = await credentials.locate(null, env, deps);
    return located?.facts ?? { kind: 'missing', label: `none found: ${credentials.missingAdvice}`, expires_at: null, refreshable: false };
  } catch {
    // A source that cannot be read (a Keychain that refuses) is reported, never thrown at a readiness probe.
    return { kind: 'missing', label: `could not be read: ${credentials.missingAdvice}`, expires_at: null, refreshable: false };
  }
}
