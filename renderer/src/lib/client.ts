import type { z } from 'zod';
import type { CitadelErrorData } from '../../../shared/errors';
import type { ForkEvent } from '../../../shared/fork/events';
import {
  APP_CHANNEL_NAMES,
  appReplySchema,
  type AppChannelName,
  type AppChannelRequest,
  type AppReply,
  type CitadelAppBridge,
} from '../../../shared/ipc/app-channels';
import { IpcEventSchema, replySchema, type ChannelName, type ChannelRequest, type CitadelBridge, type Reply } from '../../../shared/ipc/contract';
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
  /** The Electron-only app channels this shell offers (native dialogs); none under the web host. */
  readonly appChannels: ReadonlySet<AppChannelName>;
  callApp(channel: AppChannelName, request: unknown): Promise<unknown>;
}

/** The one typed client over the IPC contract that every view uses. */
export interface Client {
  call<C extends ChannelName>(channel: C, request: ChannelRequest<C>): Promise<Reply<C>>;
  /**
   * Only events that parse with the contract's event schema reach a listener. Subscribe before
   * reading the state the events update, and read it again in `onOpen` (see Transport.subscribe).
   */
  onEvent(listener: (event: ForkEvent) => void, onOpen?: () => void): () => void;
  /** An Electron-only app channel, or null when this shell lacks it and the caller must fall back. */
  app<C extends AppChannelName>(channel: C): ((request: AppChannelRequest<C>) => Promise<AppReply<C>>) | null;
}

type ErrorReply = { ok: false; error: CitadelErrorData };

export function createClient(transport: Transport): Client {
  const schemas = new Map<string, z.ZodType>();
  const cached = (name: string, make: () => z.ZodType): z.ZodType => {
    const schema = schemas.get(name) ?? make();
    schemas.set(name, schema);
    return schema;
  };
  return {
    call<C extends ChannelName>(channel: C, request: ChannelRequest<C>): Promise<Reply<C>> {
      // The schema is the channel's reply schema, so a value that parses is exactly Reply<C>.
      return parsedReply(channel, cached(channel, () => replySchema(channel)), () => transport.call(channel, request)) as Promise<Reply<C>>;
    },
    onEvent(listener, onOpen) {
      return transport.subscribe((raw) => {
        const parsed = IpcEventSchema.safeParse(raw);
        if (parsed.success) listener(parsed.data);
      }, onOpen);
    },
    app<C extends AppChannelName>(channel: C) {
      if (!transport.appChannels.has(channel)) return null;
      const schema = cached(`app:${channel}`, () => appReplySchema(channel));
      return (request: AppChannelRequest<C>) => parsedReply(channel, schema, () => transport.callApp(channel, request)) as Promise<AppReply<C>>;
    },
  };
}

/** Every answer is parsed before use; a failed transport or a malformed answer becomes a typed error. */
async function parsedReply(channel: string, schema: z.ZodType, send: () => Promise<unknown>): Promise<unknown> {
  let raw: unknown;
  try {
    raw = await send();
  } catch (error) {
    return failure(`the ${channel} call did not complete: ${error instanceof Error ? error.message : String(error)}`, channel);
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  return failure(`the ${channel} reply does not match the contract: ${parsed.error.issues[0]?.message ?? 'invalid'}`, channel);
}

function failure(message: string, channel: string): ErrorReply {
  return { ok: false, error: { code: 'INTERNAL_ERROR', message, details: { channel } } };
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
    appChannels: new Set(APP_CHANNEL_NAMES.filter((name) => typeof bridge[name] === 'function')),
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
      const text = await response.text();
      try {
        // Refusals arrive as the typed error envelope too, whatever the HTTP status.
        return JSON.parse(text) as unknown;
      } catch {
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

/** The client for this window: the preload bridge when present, otherwise the loopback web host. */
export function connectClient(win: Window & typeof globalThis & { citadel?: CitadelBridge & Partial<CitadelAppBridge> }): Client {
  if (win.citadel !== undefined) return createClient(bridgeTransport(win.citadel));
  const token = new URLSearchParams(win.location.search).get(TOKEN_QUERY);
  return createClient(webTransport(win.location.origin, token, win.fetch.bind(win), win.EventSource));
}
