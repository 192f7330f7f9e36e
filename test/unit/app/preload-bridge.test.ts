import { describe, expect, it, vi } from 'vitest';
import { APP_CHANNEL_NAMES, appIpcChannelName } from '../../../shared/ipc/app-channels';
import { CHANNEL_NAMES, EVENT_CHANNEL, ipcChannelName } from '../../../shared/ipc/contract';
import { createBridge, type IpcRendererLike } from '../../../preload/bridge';

type Relay = (event: unknown, payload: unknown) => void;

function fakeIpcRenderer() {
  const invoked: unknown[][] = [];
  const listeners = new Map<string, Set<Relay>>();
  const ipc: IpcRendererLike = {
    invoke: async (...args: unknown[]) => {
      invoked.push(args);
      return { ok: true, value: null };
    },
    on: (channel, listener) => listeners.set(channel, (listeners.get(channel) ?? new Set()).add(listener)),
    removeListener: (channel, listener) => listeners.get(channel)?.delete(listener),
  };
  return { ipc, invoked, listeners };
}

const exposed = vi.hoisted(() => ({ worlds: [] as [string, unknown][], ipcRenderer: null as unknown }));
vi.mock('electron', () => {
  const ipcRenderer = { invoke: vi.fn(), on: vi.fn(), removeListener: vi.fn(), send: vi.fn(), sendSync: vi.fn() };
  exposed.ipcRenderer = ipcRenderer;
  return { contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.worlds.push([key, api]) }, ipcRenderer };
});

// That createBridge's type is CitadelBridge & CitadelAppBridge is checked by typecheck, in preload-bridge.test-d.ts.
describe('window.citadel', () => {
  it('has one named function per contract and app channel, plus onEvent, and nothing else', () => {
    const bridge = createBridge(fakeIpcRenderer().ipc);
    expect(Object.keys(bridge).sort()).toEqual([...CHANNEL_NAMES, ...APP_CHANNEL_NAMES, 'onEvent'].sort());
    expect(new Set([...CHANNEL_NAMES, ...APP_CHANNEL_NAMES, 'onEvent']).size).toBe(CHANNEL_NAMES.length + APP_CHANNEL_NAMES.length + 1);
    for (const value of Object.values(bridge)) expect(typeof value).toBe('function');
  });

  it('sends each call on its own channel with exactly its one request', async () => {
    const { ipc, invoked } = fakeIpcRenderer();
    const bridge = createBridge(ipc) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const channel of [...CHANNEL_NAMES, ...APP_CHANNEL_NAMES]) {
      await bridge[channel]?.({ probe: channel }, 'an extra argument the bridge drops');
    }
    expect(invoked).toEqual([
      ...CHANNEL_NAMES.map((channel) => [ipcChannelName(channel), { probe: channel }]),
      ...APP_CHANNEL_NAMES.map((channel) => [appIpcChannelName(channel), { probe: channel }]),
    ]);
  });

  it('hands listeners the event payload only, and unsubscribes', () => {
    const { ipc, listeners } = fakeIpcRenderer();
    const bridge = createBridge(ipc);
    const received: unknown[][] = [];
    const unsubscribe = bridge.onEvent((...args: unknown[]) => received.push(args));
    const ipcEvent = { sender: ipc, senderId: 0 };
    listeners.get(EVENT_CHANNEL)?.forEach((relay) => relay(ipcEvent, { type: 'fork_state' }));
    expect(received).toEqual([[{ type: 'fork_state' }]]);
    unsubscribe();
    expect(listeners.get(EVENT_CHANNEL)?.size).toBe(0);
  });

  it('is the only thing the preload exposes, and ipcRenderer never is', async () => {
    await import('../../../preload/index');
    expect(exposed.worlds.map(([key]) => key)).toEqual(['citadel']);
    const [, api] = exposed.worlds[0] ?? [];
    expect(Object.keys(api as object).sort()).toEqual([...CHANNEL_NAMES, ...APP_CHANNEL_NAMES, 'onEvent'].sort());
    expect(Object.values(api as object)).not.toContain(exposed.ipcRenderer);
    expect(Object.keys(api as object)).not.toEqual(expect.arrayContaining(['invoke']));
  });
});
