import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import { forkOutcomeNotice, type ForkOutcomeNotice } from '../../../shared/fork/fork-outcome-notice';
import type { ForkState } from '../../../shared/fork/fork-record';
import type { Client } from './client';

/** The browser's notifications as this page may use them; null where the shell notifies by itself (desktop) or the API is absent. */
export interface Notifier {
  permission(): NotificationPermission;
  request(): Promise<NotificationPermission>;
  show(notice: ForkOutcomeNotice): void;
}

export function browserNotifier(win: { Notification?: typeof Notification }): Notifier | null {
  const Api = win.Notification;
  if (Api === undefined) return null;
  return {
    permission: () => Api.permission,
    request: () => Api.requestPermission(),
    show: (notice) => void new Api(notice.title, { body: notice.body }),
  };
}

const BASE_TITLE = 'Citadel Mission Control';

/**
 * What changed while the operator looked elsewhere: every fork's last known state (from one list
 * read, then fork_state events), the forks that changed since the page opened and were not opened
 * since, a notification when one becomes ready, blocked or failed, and the window title's counts.
 */
export class ForkAlerts {
  readonly states = new SvelteMap<string, ForkState>();
  readonly changed = new SvelteSet<string>();
  permission = $state<NotificationPermission | 'unsupported'>('unsupported');
  #notifier: Notifier | null = null;

  start(client: Client, notifier: Notifier | null): () => void {
    this.#notifier = notifier;
    this.permission = notifier?.permission() ?? 'unsupported';
    const read = async (): Promise<void> => {
      const reply = await client.call('listForks', { state: null });
      if (!reply.ok) return;
      for (const fork of reply.value.forks) if (!this.states.has(fork.fork_id)) this.states.set(fork.fork_id, fork.state);
    };
    const unsubscribe = client.onEvent(
      (event) => {
        if (event.type !== 'fork_state') return;
        const previous = this.states.get(event.fork_id) ?? null;
        this.states.set(event.fork_id, event.state);
        if (previous !== event.state) this.changed.add(event.fork_id);
        const notice = forkOutcomeNotice(event, previous);
        if (notice !== null && this.permission === 'granted') this.#notifier?.show(notice);
      },
      () => void read(),
    );
    void read();
    return unsubscribe;
  }

  async allow(): Promise<void> {
    if (this.#notifier !== null) this.permission = await this.#notifier.request();
  }

  /** The operator opened this fork: it is no longer news. */
  seen(forkId: string): void {
    this.changed.delete(forkId);
  }

  get title(): string {
    let running = 0;
    let ready = 0;
    for (const state of this.states.values()) {
      if (state === 'running') running += 1;
      else if (state === 'ready') ready += 1;
    }
    const counts = [running > 0 ? `${running} running` : null, ready > 0 ? `${ready} ready` : null].filter((part) => part !== null);
    return counts.length === 0 ? BASE_TITLE : `(${counts.join(' · ')}) ${BASE_TITLE}`;
  }
}

export const forkAlerts = new ForkAlerts();
