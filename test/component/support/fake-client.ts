import type { AppChannelName, AppChannelRequest, AppReply } from '../../../shared/ipc/app-channels';
import type { ChannelName, ChannelRequest, Reply } from '../../../shared/ipc/contract';
import { createClient, type Client } from '../../../renderer/src/lib/client';
import type { Transport } from '../../../renderer/src/lib/transport';

type Handlers = { [C in ChannelName]?: (request: ChannelRequest<C>) => Reply<C> | Promise<Reply<C>> };
/** Electron-only app channels the fake shell offers; none means a browser (web host). */
type AppHandlers = { [C in AppChannelName]?: (request: AppChannelRequest<C>) => AppReply<C> | Promise<AppReply<C>> };

export interface FakeClient {
  client: Client;
  calls: { channel: ChannelName | AppChannelName; request: unknown }[];
  /** Pushes a raw event through the transport, as the bridge or the web host would. */
  emit(raw: unknown): void;
}

/**
 * The only thing component tests replace: the transport under the real client, so every reply a
 * view sees has passed the contract's reply schema exactly as in the app. A channel without a
 * handler answers with a typed error, so an unexpected call is visible rather than silently hanging.
 */
export function fakeClient(handlers: Handlers, appHandlers: AppHandlers = {}): FakeClient {
  const calls: FakeClient['calls'] = [];
  const listeners = new Set<(raw: unknown) => void>();
  const transport: Transport = {
    async call(channel, request) {
      calls.push({ channel, request });
      const handler = handlers[channel] as ((request: unknown) => unknown) | undefined;
      if (handler === undefined) return { ok: false, error: { code: 'INTERNAL_ERROR', message: `no fake handler for ${channel}` } };
      return handler(request);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    appChannels: new Set(Object.keys(appHandlers) as AppChannelName[]),
    async callApp(channel, request) {
      calls.push({ channel, request });
      const handler = appHandlers[channel] as ((request: unknown) => unknown) | undefined;
      if (handler === undefined) throw new Error(`no fake app channel ${channel}`);
      return handler(request);
    },
  };
  return { client: createClient(transport), calls, emit: (raw) => listeners.forEach((listener) => listener(raw)) };
}

