import type { HttpRoute } from '../../../shared/sandbox/containment-policy';
import type { EgressTarget } from './egress-target';

/**
 * What a loopback rule from before routes existed allows: the inference requests every runtime
 * made of a loopback provider then (Codex on Ollama and LM Studio, Claude on a loopback
 * ANTHROPIC_BASE_URL). Narrower than the raw forward those contracts ran under, and never a model
 * pull, push, create, copy or delete; reading "no routes" as "every route" would keep the relay open.
 */
export const LEGACY_LOOPBACK_ROUTES: readonly HttpRoute[] = [
  { method: 'GET', path: '/v1/models' },
  { method: 'GET', path: '/api/version' },
  { method: 'GET', path: '/api/tags' },
  { method: 'POST', path: '/v1/responses' },
  { method: 'POST', path: '/v1/messages' },
];

/** The routes a loopback provider's bridge lets through. */
export function loopbackRoutesOf(target: Extract<EgressTarget, { kind: 'loopback' }>): readonly HttpRoute[] {
  return target.routes ?? LEGACY_LOOPBACK_ROUTES;
}
