import { IPC_CHANNELS, type ChannelName } from '../../shared/ipc/contract';

/** Whether `name` is a contract channel (own property only: `toString` or `__proto__` are not). */
export function isChannelName(name: string): name is ChannelName {
  return Object.hasOwn(IPC_CHANNELS, name);
}
