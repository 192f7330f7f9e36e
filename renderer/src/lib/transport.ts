import type { AppChannelName, CitadelAppBridge } from '../../../shared/ipc/app-channels';
import type { ChannelName, CitadelBridge } from '../../../shared/ipc/contract';
import { API_CALL_PREFIX, API_EVENTS_PATH, TOKEN_HEADER, TOKEN_QUERY } from '../../../shared/ipc/web-protocol';

/**
 * How raw answers reach the renderer: the Electron preload bridge or the loopback web host.
 * Everything a transport hands over is untrusted until the client has parsed it.
 */
export interface Transport {
  call(channel: ChannelName, request: unknown): Promise<unknown>;
  /**
   * `onOpen` runs whenever a stream that connects asynchronously (the web host's) has connected or
   * reconnected: events sent before it were missed, so state read before it may be stale.
   */
  subscribe(listener: (raw: unknown) => void, onOpen?: () => void): () => void;
  /** Whether this shell offers an Electron-only app channel (native dialogs); none under the web host. */
  readonly appChannels: { has(channel: AppChannelName): boolean };
  callApp(channel: AppChannelName, request: unknown): Promise<unknown>;
}

/** The Electron bridge: one named function per channel (never a generic invoke). */
export function bridgeTransport(bridge: CitadelBridge & Partial<CitadelAppBridge>): Transport {
  const invoke = (name: string, request: unknown): Promise<unknown> => {
    const fn: unknown = (bridge as Record<string, unknown>)[name];
    if (typeof fn !== 'function') return Promise.reject(new Error(`the bridge has no ${name} function`));
    // Called with the bridge as `this`, exactly as the preload exposed it; the client parses the reply.
    return Promise.resolve((fn as (request: unknown) => unknown).call(bridge, request));
  };
  return {
    call: invoke,
    callApp: invoke,
    // The IPC subscription is live as soon as it returns, so there is never an `onOpen` to report.
    subscribe: (listener) => bridge.onEvent((event) => listener(event)),
    appChannels: { has: (channel) => typeof (bridge as Partial<CitadelAppBridge>)[channel] === 'function' },
  };
}

/** The loopback web host (shared/ipc/web-protocol.ts): token from the page URL, one shared event stream. */
export function webTransport(origin: string, token: string | null, fetchFn: typeof fetch, EventSourceCtor: typeof EventSource): Transport {
  // Each subscription's `onOpen`; every one is told when the shared stream (re)connects.
  const listeners = new Map<(raw: unknown) => void, (() => void) | undefined>();
  let source: EventSource | null = null;
  return {
    async call(channel, request) {
      if (token === null) throw new Error(`no access token in this page's address; open the URL printed by citadel mission-control`);
      const response = await fetchFn(new URL(`${API_CALL_PREFIX}${channel}`, origin), {
        method: 'POST',
        headers: { 'content-type': 'application/json', [TOKEN_HEADER]: token },
        body: JSON.stringify(request),
      });
      try {
        // Refusals arrive as the typed error envelope too, whatever the HTTP status. Parsed from
        // the body's bytes: a thousand forks are never first copied into one string.
        return (await response.json()) as unknown;
      } catch (error) {
        // A body that stopped arriving is a failed call, not a reply that is not JSON.
        if (!(error instanceof SyntaxError)) throw error;
        throw new Error(`the web host answered HTTP ${response.status} without a JSON reply`);
      }
    },
    subscribe(listener, onOpen) {
      // A wrapper per subscription: the same function subscribed twice has two handles.
      const entry = (raw: unknown) => listener(raw);
      listeners.set(entry, onOpen);
      if (source === null && token !== null) {
        const url = new URL(API_EVENTS_PATH, origin);
        url.searchParams.set(TOKEN_QUERY, token);
        source = new EventSourceCtor(url);
        // EventSource reconnects on its own after a drop; each (re)connection is an `open`.
        source.onopen = () => {
          for (const opened of [...listeners.values()]) opened?.();
        };
        source.onmessage = (message: MessageEvent<unknown>) => {
          if (typeof message.data !== 'string') return;
          let raw: unknown;
          try {
            raw = JSON.parse(message.data);
          } catch {
            return;
          }
          for (const each of [...listeners.keys()]) each(raw);
        };
      }
      return () => {
        listeners.delete(entry);
        if (listeners.size === 0 && source !== null) {
          source.close();
          source = null;
        }
      };
    },
    appChannels: new Set(),
    callApp: (channel) => Promise.reject(new Error(`${channel} exists only in the desktop app`)),
  };
}

/** True when this page is served by the web host but its address carries no access token, so no call can succeed. */
export function missingAccessToken(win: Window & { citadel?: unknown }): boolean {
  return win.citadel === undefined && new URLSearchParams(win.location.search).get(TOKEN_QUERY) === null;
}

type ShellWindow = Window & typeof globalThis & { citadel?: CitadelBridge & Partial<CitadelAppBridge> };

/** What the window's fork list asks for (renderer/src/lib/fork-list.svelte.ts), and so what is primed. */
export const FORK_LIST_REQUEST = { state: null } as const;

/**
 * This window's transport: the preload bridge when present, otherwise the loopback web host. Under
 * the web host the fork list's read is sent at once: main.ts imports this before the app's own
 * modules, so the host reads while the app starts (the Forks view is the first page, and its one
 * read is most of its wait: issue 14's first-render bench). That read predates the list's event
 * subscription, which is safe because the web stream reports its open and the list reads again
 * then; the bridge reports none, so the desktop reads in order.
 */
export function windowTransport(win: ShellWindow): Transport {
  if (win.citadel !== undefined) return bridgeTransport(win.citadel);
  const token = new URLSearchParams(win.location.search).get(TOKEN_QUERY);
  const web = webTransport(win.location.origin, token, win.fetch.bind(win), win.EventSource);
  return token === null ? web : primedTransport(web, [{ channel: 'listForks', request: FORK_LIST_REQUEST }]);
}

/**
 * A transport that sends the given calls now and answers each one's first matching call with that
 * early answer (as raw and unparsed as any other), if that call comes in the same task: the app
 * claims them as it starts, and an answer nobody claimed then is dropped rather than handed out
 * late and stale. Every other call goes out as usual.
 */
export function primedTransport(inner: Transport, early: readonly { channel: ChannelName; request: unknown }[]): Transport {
  const key = (channel: ChannelName, request: unknown): string => `${channel}\n${JSON.stringify(request)}`;
  const sent = new Map<string, Promise<unknown>>();
  for (const { channel, request } of early) {
    const answer = inner.call(channel, request);
    // Handled by whoever takes it; never taken, a failure must not surface as an unhandled rejection.
    answer.catch(() => undefined);
    sent.set(key(channel, request), answer);
  }
  setTimeout(() => sent.clear(), 0);
  return {
    ...inner,
    call(channel, request) {
      const k = key(channel, request);
      const answer = sent.get(k);
      if (answer === undefined) return inner.call(channel, request);
      sent.delete(k);
      return answer;
    },
  };
}
