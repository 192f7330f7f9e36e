import type { ForkEvent } from '../../shared/fork/events';
import type { ChannelName, Reply } from '../../shared/ipc/contract';

/**
 * What every shell of Mission Control (Electron IPC handlers, the loopback web host) calls: one
 * dispatcher over the IPC contract. `handle` takes untrusted input, parses it with the channel's
 * request schema, calls one orchestrator function and returns the typed reply; it never throws.
 */
export interface MissionControlService {
  handle<C extends ChannelName>(channel: C, payload: unknown): Promise<Reply<C>>;
  /** Unknown channel names are refused as typed errors too. */
  handleUntrusted(channel: string, payload: unknown): Promise<Reply<ChannelName>>;
  subscribe(listener: (event: ForkEvent) => void): () => void;
}
