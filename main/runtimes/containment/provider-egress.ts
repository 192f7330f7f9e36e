import { CitadelError } from '../../../shared/errors';
import { gatewayUpstreamProblem, type GatewayApi, type GatewayInside, type GatewayRule, type HttpRoute } from '../../../shared/sandbox/containment-policy';

/**
 * The port a runtime reaches its provider gateway on inside the sandbox (127.0.0.1). The sandbox has
 * a network namespace of its own, so a fixed port collides with nothing and keeps the policy the
 * same for the same profile, wherever the provider really is.
 */
export const GATEWAY_INSIDE_PORT = 3129;

export interface GatewayRuleInput {
  readonly api: GatewayApi;
  /** The provider's URL as the operator configured it (or the vendor default). */
  readonly upstreamUrl: string;
  /** The setting that named it, for the refusal's message. */
  readonly setting: string;
  /** The requests the runtime makes, as paths it sends (relative to the gateway's root). */
  readonly routes: readonly HttpRoute[];
  /** The one model the profile names; null: a profile without a model (any model is forwarded and witnessed). */
  readonly model: string | null;
  readonly inside?: GatewayInside;
}

/**
 * The provider gateway rule for a runtime (issue 28): whatever the provider's address (a cloud API,
 * a local Ollama, one on another machine), the runtime reaches only the gateway on the host, which
 * makes that connection itself. A URL the gateway cannot forward to (not http(s), carrying
 * credentials or a query) is refused here, before any fork exists, rather than launched to fail.
 */
export function gatewayRule(input: GatewayRuleInput): GatewayRule {
  const upstream = input.upstreamUrl.trim().replace(/\/+$/, '');
  const problem = gatewayUpstreamProblem(upstream);
  if (problem !== null) {
    throw new CitadelError('EGRESS_PROVIDER_UNSUPPORTED', `${input.setting} cannot be used as the provider gateway's upstream: it ${problem}`, {
      details: { setting: input.setting, url: input.upstreamUrl },
    });
  }
  return {
    kind: 'gateway',
    api: input.api,
    inside: input.inside ?? { kind: 'http', port: GATEWAY_INSIDE_PORT },
    upstream,
    routes: input.routes.map((route) => ({ method: route.method, path: route.path })),
    models: input.model === null ? null : [input.model],
  };
}

/** The base URL a runtime inside the sandbox is given for an http gateway. */
export function gatewayBaseUrl(rule: GatewayRule): string {
  if (rule.inside.kind !== 'http') throw new CitadelError('INTERNAL_ERROR', 'a TLS-terminated gateway has no base URL');
  return `http://127.0.0.1:${rule.inside.port}`;
}
