import { removeSocketDirSync } from '../../sandbox/egress/socket-dir';
import { createGatewayHandler, type UpstreamCredential } from '../../sandbox/gateway/gateway-handler';
import { startGateway } from '../../sandbox/gateway/start-gateway';
import type { GatewaySpec } from '../../sandbox/gateway/gateway-spec';
import type { CredentialGrant } from '../credentials/credential-grant';
import { denialRecorder, egressDenialsFile } from './egress-denials';
import { wireFile, wireRecorder } from './wire-recorder';

export interface ServedGateway {
  close(): Promise<void>;
}

/**
 * Serves a run's provider gateway (issue 28) on its socket: the real credential from the grant,
 * each request witnessed into the attempt's wire file and each refusal into its denials. A spent
 * token budget or a credential that cannot be had ends the run at once (`endRun`): the runtimes
 * retry refused requests for minutes otherwise, and the branch's outcome is already decided.
 */
export async function serveGateway(spec: GatewaySpec, statusFile: string, endRun: () => void): Promise<ServedGateway> {
  const onDenial = denialRecorder(egressDenialsFile(statusFile));
  const handler = createGatewayHandler({
    rule: spec.rule,
    placeholder: spec.placeholder,
    credential: upstreamCredentialFor(spec.credential),
    budgetTokens: spec.budget_tokens,
    onExchange: wireRecorder(wireFile(statusFile)),
    onDenial,
    onBudgetExceeded: endRun,
    onCredentialFailed: endRun,
  });
  const gateway = await startGateway({ socketPath: spec.socket_path, handler, tls: null });
  // Should this process end before closing it (an uncaught error), the socket and its directory go with it.
  process.once('exit', () => removeSocketDirSync(spec.socket_path));
  return gateway;
}

function upstreamCredentialFor(grant: CredentialGrant): UpstreamCredential {
  if (grant.kind === 'static') return { headers: () => Promise.resolve(grant.headers) };
  return { headers: () => Promise.resolve({}) };
}
