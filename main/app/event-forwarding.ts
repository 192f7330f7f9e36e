import type { ForkEvent } from '../../shared/fork/events';
import { EVENT_CHANNEL } from '../../shared/ipc/contract';
import type { MissionControlService } from '../mission-control/service';

/** The slice of a BrowserWindow's WebContents that receives events. */
export interface EventReceiver {
  isDestroyed(): boolean;
  send(channel: string, event: ForkEvent): void;
  once(event: 'destroyed', listener: () => void): unknown;
}

/** Streams the service's typed events to one window on EVENT_CHANNEL until that window is gone. */
export function forwardEvents(service: Pick<MissionControlService, 'subscribe'>, target: EventReceiver): () => void {
  const unsubscribe = service.subscribe((event) => {
    if (!target.isDestroyed()) target.send(EVENT_CHANNEL, event);
  });
  target.once('destroyed', unsubscribe);
  return unsubscribe;
}
