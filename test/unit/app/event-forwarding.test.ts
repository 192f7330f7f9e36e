import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ForkEvent } from '../../../shared/fork/events';
import { EVENT_CHANNEL } from '../../../shared/ipc/contract';
import { forwardEvents } from '../../../main/app/event-forwarding';
import { fakeService } from './fakes';

class FakeContents extends EventEmitter {
  destroyed = false;
  readonly sent: [string, ForkEvent][] = [];
  isDestroyed(): boolean {
    return this.destroyed;
  }
  send(channel: string, event: ForkEvent): void {
    this.sent.push([channel, event]);
  }
}

const EVENT: ForkEvent = { type: 'fork_state', fork_id: 'fork-01jq0000000000000000000000', state: 'running', revision: 3 };

describe('forwardEvents', () => {
  it('sends every service event to the window on EVENT_CHANNEL', () => {
    const { service, emit } = fakeService(async () => ({ ok: true, value: { forks: [] } }));
    const contents = new FakeContents();
    forwardEvents(service, contents);
    emit(EVENT);
    expect(contents.sent).toEqual([[EVENT_CHANNEL, EVENT]]);
  });

  it('unsubscribes once the window is destroyed, and never sends to a destroyed one', () => {
    const { service, emit, listeners } = fakeService(async () => ({ ok: true, value: { forks: [] } }));
    const contents = new FakeContents();
    forwardEvents(service, contents);
    contents.destroyed = true;
    emit(EVENT);
    expect(contents.sent).toEqual([]);
    contents.emit('destroyed');
    expect(listeners.size).toBe(0);
  });
});
