import { CitadelError } from '../../../shared/errors';
import type { EgressRule, HttpRoute } from '../../../shared/sandbox/containment-policy';

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '::1', 'localhost']);
const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * The one egress a runtime's provider URL needs: a loopback URL (a local provider, or the scripted
 * server the vendor tests point `*_BASE_URL` at) is that host:port, serving only `routes` (the
 * requests the runtime makes, relative to the URL's path); an https URL on port 443 is a cloud API
 * reached by name through the filtering proxy. Anything else (plain http to another host, another
 * port) cannot be bridged, so it is refused rather than launched to fail.
 */
export function egressForProviderUrl(url: string, setting: string, routes: readonly HttpRoute[]): EgressRule {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  const port = parsed === null ? undefined : parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
  if (parsed === null || port === undefined) throw unsupported(setting, url, 'it is not an http(s) URL');
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (LOOPBACK_HOSTS.has(host)) {
    const base = parsed.pathname.replace(/\/+$/, '');
    return { kind: 'loopback', host: host as '127.0.0.1' | '::1' | 'localhost', port, routes: routes.map((route) => ({ method: route.method, path: `${base}${route.path}` })) };
  }
  if (parsed.protocol === 'https:' && port === 443) return { kind: 'cloud', hosts: [host] };
  throw unsupported(setting, url, 'only a loopback provider or an https API on port 443 can be reached from the sandbox');
}

/** The provider's egress when `setting` may redirect it (e.g. ANTHROPIC_BASE_URL), else the runtime's cloud hosts. */
export function egressForOptionalUrl(url: string | undefined, setting: string, cloudHosts: readonly string[], routes: readonly HttpRoute[]): EgressRule {
  return url === undefined || url === '' ? { kind: 'cloud', hosts: [...cloudHosts] } : egressForProviderUrl(url, setting, routes);
}

function unsupported(setting: string, url: string, problem: string): CitadelError {
  return new CitadelError('EGRESS_PROVIDER_UNSUPPORTED', `${setting} cannot be reached from the sandbox: ${problem}`, { details: { setting, url } });
}
