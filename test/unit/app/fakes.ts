import { EventEmitter } from 'node:events';
import type { ForkEvent } from '../../../shared/fork/events';
import type { ChannelName, Reply } from '../../../shared/ipc/contract';
import type { IpcMainLike } from '../../../main/app/ipc-handlers';
import type { SenderEvent } from '../../../main/app/trusted-senders';
import type { MissionControlService } from '../../../main/mission-control/service';

type Listener = (event: SenderEvent, ...args: unknown[]) => Promise<unknown>;

/** Electron's ipcMain as far as the handlers use it: one listener per channel, invoked by name. */
export class FakeIpcMain implements IpcMainLike<SenderEvent> {
  readonly handlers = new Map<string, Listener>();

  handle(channel: string, listener: Listener): void {
    // Electron throws on a second handler for one channel; so does the fake.
    if (this.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
    this.handlers.set(channel, listener);
  }

  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }

  invoke(channel: string, event: SenderEvent, ...args: unknown[]): Promise<unknown> {
    const listener = this.handlers.get(channel);
    if (listener === undefined) throw new Error(`no handler for ${channel}`);
    return listener(event, ...args);
  }
}

/** A WebContents stand-in: an id and a `destroyed` event. */
export class FakeWebContents extends EventEmitter {
  constructor(readonly id: number) {
    super();
  }
  destroy(): void {
    this.emit('destroyed');
  }
}

export function senderEvent(contents: { id: number }, url: string, parent: unknown = null): SenderEvent {
  return { sender: { id: contents.id }, senderFrame: { url, parent } };
}

/** A service that records its calls and answers with whatever `answer` says. */
export function fakeService(answer: (channel: ChannelName, payload: unknown) => Promise<Reply<ChannelName>>) {
  const calls: { channel: ChannelName; payload: unknown }[] = [];
  const listeners = new Set<(event: ForkEvent) => void>();
  // The IPC layer only ever passes contract names (it registers one handler per channel).
  const handle = (channel: string, payload: unknown): Promise<never> => {
    calls.push({ channel: channel as ChannelName, payload });
    return answer(channel as ChannelName, payload) as Promise<never>;
  };
  const service: MissionControlService = {
    handle,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
  return { service, calls, listeners, emit: (event: ForkEvent) => listeners.forEach((listener) => listener(event)) };
}
