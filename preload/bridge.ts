import { APP_CHANNEL_NAMES, appIpcChannelName, type AppChannelName, type CitadelAppBridge } from '../shared/ipc/app-channels';
import { CHANNEL_NAMES, EVENT_CHANNEL, ipcChannelName, type ChannelName, type CitadelBridge } from '../shared/ipc/contract';

/** The part of Electron's `ipcRenderer` the bridge uses; it never reaches the page itself. */
export interface IpcRendererLike {
  invoke(channel: string, request: unknown): Promise<unknown>;
  on(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
}

/**
 * `window.citadel`: one named function per contract channel and per Electron-only app channel,
 * generated from the two tables, each sending exactly its one request on its own channel; and
 * `onEvent`, which hands the page the event payload only (never the IPC event, whose `sender` is
 * ipcRenderer itself).
 */
export function createBridge(ipc: IpcRendererLike): CitadelBridge & CitadelAppBridge {
  const call = (channel: string) => (request: unknown) => ipc.invoke(channel, request);
  const contract = Object.fromEntries(CHANNEL_NAMES.map((channel) => [channel, call(ipcChannelName(channel))])) as {
    [C in ChannelName]: CitadelBridge[C];
  };
  const app = Object.fromEntries(APP_CHANNEL_NAMES.map((channel) => [channel, call(appIpcChannelName(channel))])) as {
    [C in AppChannelName]: CitadelAppBridge[C];
  };
  return {
    ...contract,
    ...app,
    onEvent(listener) {
      const relay = (_event: unknown, payload: unknown) => listener(payload as Parameters<typeof listener>[0]);
      ipc.on(EVENT_CHANNEL, relay);
      return () => void ipc.removeListener(EVENT_CHANNEL, relay);
    },
  };
}
