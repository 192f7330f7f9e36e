import { removeSocketDirSync } from '../../sandbox/egress/socket-dir';
import { loadAttemptCa } from '../../sandbox/gateway/attempt-ca';
import { createGatewayHandler } from '../../sandbox/gateway/gateway-handler';
import { startGateway } from '../../sandbox/gateway/start-gateway';
import type { GatewaySpec } from '../../sandbox/gateway/gateway-spec';
import { createTlsInterception } from '../../sandbox/gateway/tls-interception';
import { hostUpstreamDeps, upstreamCredentialFor } from '../credentials/credential-for-grant';
import { denialRecorder, egressDenialsFile } from './egress-denials';
import { wireFile } from '../../evidence/wire-exchanges';
import { wireRecorder } from './wire-recorder';

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
    credential: upstreamCredentialFor(spec.credential, hostUpstreamDeps()),
    budgetTokens: spec.budget_tokens,
    onExchange: wireRecorder(wireFile(statusFile)),
    onDenial,
    onBudgetExceeded: endRun,
    onCredentialFailed: endRun,
  });
  const tls = spec.ca === null || spec.rule.inside.kind !== 'tls' ? null : createTlsInterception({ hosts: spec.rule.inside.hosts, ca: await loadAttemptCa(spec.ca), handle: handler.handle, onDenial });
  const gateway = await startGateway({ socketPath: spec.socket_path, handler, tls });
  // Should this process end before closing it (an uncaught error), the socket and its directory go with it.
  process.once('exit', () => removeSocketDirSync(spec.socket_path));
  return {
    close: async () => {
      tls?.close();
      await gateway.close();
    },
  };
}

