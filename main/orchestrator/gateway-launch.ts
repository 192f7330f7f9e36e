import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { CitadelError } from '../../shared/errors';
import type { RuntimeProfile } from '../../shared/executors/runtime-profile';
import type { GatewayRule } from '../../shared/sandbox/containment-policy';
import type { CredentialGrant } from '../runtimes/credentials/credential-grant';
import { hostCredentialDeps } from '../runtimes/credentials/runtime-credentials';
import { placeholderFor } from '../runtimes/credentials/placeholder';
import { resolveGrant } from '../runtimes/credentials/resolve-grant';
import type { RuntimeAdapter } from '../runtimes/adapter-contract/runtime-adapter';
import { createAttemptCa } from '../sandbox/gateway/attempt-ca';
import type { GatewaySpec } from '../sandbox/gateway/gateway-spec';
import type { OrchestratorContext } from '../host/context';

/** What one attempt's gateway launch is made of, before its socket exists. */
export interface GatewayLaunch {
  /** What the sandbox is given: the placeholder and, for TLS, the CA certificate (host path, bound read-only). */
  readonly inside: { readonly placeholder: string; readonly caCertFile: string | null };
  /** The supervisor's gateway spec once the socket path is known. */
  spec(socketPath: string): GatewaySpec;
}

/**
 * The grant a contained branch's gateway will hold, or RUNTIME_AUTH_MISSING saying what to do: asked
 * when a fork is created (nothing exists yet) and again at each launch (the login may be gone since).
 */
export async function gatewayCredential(ctx: Pick<OrchestratorContext, 'env'>, adapter: RuntimeAdapter, profile: RuntimeProfile): Promise<CredentialGrant> {
  const credential = await resolveGrant(adapter.id, adapter.credentials, profile, ctx.env, hostCredentialDeps());
  // A ChatGPT login speaks another API at another host (zstd bodies, chatgpt.com): not brokered yet.
  if (credential.kind === 'codex_chatgpt') {
    throw new CitadelError(
      'RUNTIME_AUTH_MISSING',
      "Codex's ChatGPT login cannot be used through Citadel's provider gateway yet: set CODEX_API_KEY (or OPENAI_API_KEY), or run this fork with --containment runtime-only.",
      { details: { runtime: adapter.id } },
    );
  }
  return credential;
}

/** The attempt's private gateway folder: the CA's key lives here, outside every sandbox root. */
export function attemptGatewayDir(attemptDir: string): string {
  return path.join(attemptDir, 'gateway');
}

/**
 * Everything an attempt's provider gateway needs, made on the host at launch (issue 28): the
 * operator's credential as a grant (RUNTIME_AUTH_MISSING when there is none), a fresh placeholder,
 * the contract's token budget, and for a TLS-terminated runtime a fresh CA whose key never leaves
 * the attempt's gateway folder.
 */
export async function prepareGatewayLaunch(
  ctx: OrchestratorContext,
  input: { readonly rule: GatewayRule; readonly adapter: RuntimeAdapter; readonly profile: RuntimeProfile; readonly attemptDir: string; readonly budgetTokens: number | null },
): Promise<GatewayLaunch> {
  const credential = await gatewayCredential(ctx, input.adapter, input.profile);
  const dir = attemptGatewayDir(input.attemptDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const ca = input.rule.inside.kind === 'tls' ? await createAttemptCa(dir, input.rule.inside.hosts) : null;
  const placeholder = placeholderFor(input.adapter.credentials.placeholder);
  return {
    inside: { placeholder, caCertFile: ca?.cert_file ?? null },
    spec: (socketPath) => ({ socket_path: socketPath, rule: input.rule, placeholder, credential, budget_tokens: input.budgetTokens, ca }),
  };
}
