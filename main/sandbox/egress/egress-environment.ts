import type { EgressTarget } from './egress-target';

/**
 * The port the CONNECT proxy answers on inside the sandbox. The sandbox has a network namespace of its
 * own, so a fixed port collides with nothing and keeps the launch argv the same for the same profile.
 */
export const INNER_PROXY_PORT = 3128;

export interface EgressInside {
  /** Where the inner bridge listens, on 127.0.0.1 inside the sandbox. */
  readonly listenPort: number;
  /** What the runtime's environment needs inside for its traffic to take the bridge. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * A local provider's `host:port` inside the sandbox: the same port as outside, so provider URLs in
   * profiles need no rewrite; null for a cloud runtime, which reaches its hosts by name through the proxy.
   */
  readonly providerAuthority: string | null;
}

/** How a runtime inside the sandbox reaches its one egress target through the inner bridge. */
export function egressInside(target: EgressTarget): EgressInside {
  if (target.kind === 'loopback') {
    return { listenPort: target.port, env: {}, providerAuthority: `127.0.0.1:${target.port}` };
  }
  // A gateway reached by base URL listens on its own port; its runtime is pointed at it by its adapter.
  if (target.kind === 'gateway' && target.inside.kind === 'http') {
    return { listenPort: target.inside.port, env: {}, providerAuthority: `127.0.0.1:${target.inside.port}` };
  }
  const proxy = `http://127.0.0.1:${INNER_PROXY_PORT}`;
  // Both spellings: Node-based CLIs read the upper-case names, curl and some Rust clients the lower-case ones.
  // NO_PROXY is set empty so that no inherited exception lets a host bypass the proxy.
  return {
    listenPort: INNER_PROXY_PORT,
    env: { HTTPS_PROXY: proxy, https_proxy: proxy, NO_PROXY: '', no_proxy: '' },
    providerAuthority: null,
  };
}
