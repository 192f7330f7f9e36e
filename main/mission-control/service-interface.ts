import type { ForkEvent } from '../../shared/fork/events';
import type { ChannelName, Reply } from '../../shared/ipc/contract';

/**
 * What every shell of Mission Control (Electron IPC handlers, the loopback web host) calls: one
 * dispatcher over the IPC contract. `handle` takes untrusted input, parses it with the channel's
 * request schema, calls one orchestrator function and returns the typed reply; it never throws.
 * A channel name that is not in the contract (a URL path, a stale preload) is refused as a typed
 * error too, so one entry point serves typed and untyped callers alike.
 */
export interface MissionControlService {
  handle<C extends ChannelName>(channel: C, payload: unknown): Promise<Reply<C>>;
  handle(channel: string, payload: unknown): Promise<Reply<ChannelName>>;
  subscribe(listener: (event: ForkEvent) => void): () => void;
}
