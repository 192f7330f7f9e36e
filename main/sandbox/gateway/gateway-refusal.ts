import type { ServerResponse } from 'node:http';
import type { WireRefusal } from '../../../shared/runtime/wire';
import type { GatewayApi } from '../../../shared/sandbox/containment-policy';
import { DENIAL_STATUS } from '../egress/connect-request';
import type { EgressDenialReason } from '../egress/egress-denial';
import { DIALECTS } from './dialects/dialects';

/** The egress denial a gateway refusal is journaled as (a route refusal is the bridge's `path_not_allowed`). */
export function denialReasonOf(refusal: WireRefusal): EgressDenialReason {
  return refusal === 'route_not_allowed' ? 'path_not_allowed' : refusal;
}

const MESSAGES: Readonly<Record<WireRefusal, string>> = {
  route_not_allowed: 'this method and path are not one of the provider routes the contract allows',
  query_not_allowed: 'this query string is not one the provider routes take (a key in the query, or a parameter that would change the answer the gateway witnesses)',
  placeholder_mismatch: 'the request does not carry the credential this sandbox was given',
  body_too_large: 'the request body is larger than the gateway reads',
  body_unparsable: 'the request body is not the JSON object this API takes (or a GET/HEAD carries a body)',
  body_encoding_unsupported: 'a compressed request body is not accepted; send it uncompressed',
  model_not_allowed: 'the model is not one the contract allows',
  server_tool_refused: 'tools that run on the provider (web search or fetch, code execution, hosted connectors), content the provider would fetch from a URL, or a background response are not allowed',
  mcp_servers_refused: 'the provider-side MCP connector (mcp_servers) is not allowed',
  budget_exceeded: 'the token budget of this branch is spent, or an answer did not report the tokens it used',
  usage_not_requested: 'with a token budget, a streamed request must ask for its usage (stream_options.include_usage: true)',
  credential_unavailable: 'Citadel could not obtain the provider credential on the host; log in again there',
};

/**
 * Answers a refused request with the status DENIAL_STATUS gives its reason and an error body in the
 * API's own shape, so that the runtime shows the message. The connection closes: a refused
 * request's body is never read on.
 */
export function writeRefusal(response: ServerResponse, api: GatewayApi, refusal: WireRefusal): void {
  const [status = '403'] = DENIAL_STATUS[denialReasonOf(refusal)].split(' ', 1);
  const message = `Citadel gateway: ${MESSAGES[refusal]} (${refusal})`;
  const errorType = status === '401' ? 'authentication_error' : status === '403' ? 'permission_error' : 'invalid_request_error';
  const body = JSON.stringify(DIALECTS[api].errorBody(Number(status), errorType, refusal, message));
  if (response.headersSent) return void response.destroy();
  response.writeHead(Number(status), { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
  response.end(body);
}
