import { SvelteSet } from 'svelte/reactivity';
import { forkOutcomeNotice, type ForkOutcomeNotice } from '../../../shared/fork/fork-outcome-notice';
import type { ForkState } from '../../../shared/fork/fork-record';
import type { Client } from './client';
import { forkListOf } from './fork-list.svelte';

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

/** A copy of `states` with `entries` added; `overwrite` replaces known forks' states too. */
function merged(states: ReadonlyMap<string, ForkState>, entries: Iterable<readonly [string, ForkState]>, overwrite: boolean): ReadonlyMap<string, ForkState> {
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a fresh copy, never changed once returned: the state holds it whole.
  const next = new Map(states);
  for (const [id, state] of entries) if (overwrite || !next.has(id)) next.set(id, state);
  return next;
}

/**
 * What changed while the operator looked elsewhere: every fork's last known state (from one list
 * read, then fork_state events), the forks that changed since the page opened and were not opened
 * since, a notification when one becomes ready, blocked or failed, and the window title's counts.
 */
export class ForkAlerts {
  // Every fork's last known state, replaced whole: seeding a thousand forks one SvelteMap set at a
  // time cost more than rendering the fork list.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- empty and never changed: see merged().
  #states = $state.raw<ReadonlyMap<string, ForkState>>(new Map());
  readonly changed = new SvelteSet<string>();
  permission = $state<NotificationPermission | 'unsupported'>('unsupported');
  #notifier: Notifier | null = null;

  start(client: Client, notifier: Notifier | null): () => void {
    this.#notifier = notifier;
    this.permission = notifier?.permission() ?? 'unsupported';
    const unsubscribe = client.onEvent((event) => {
      if (event.type !== 'fork_state') return;
      const previous = this.#states.get(event.fork_id) ?? null;
      this.#states = merged(this.#states, [[event.fork_id, event.state]], true);
      if (previous !== event.state) this.changed.add(event.fork_id);
      const notice = forkOutcomeNotice(event, previous);
      if (notice !== null && this.permission === 'granted') this.#notifier?.show(notice);
    });
    // The Forks view's own list: one read (and one parse) serves both, and re-reads on reconnect.
    const release = forkListOf(client).hold((forks) => {
      this.#states = merged(
        this.#states,
        forks.map((fork) => [fork.fork_id, fork.state] as const),
        false,
      );
    });
    return () => {
      release();
      unsubscribe();
    };
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
    for (const state of this.#states.values()) {
      if (state === 'running') running += 1;
      else if (state === 'ready') ready += 1;
    }
    const counts = [running > 0 ? `${running} running` : null, ready > 0 ? `${ready} ready` : null].filter((part) => part !== null);
    return counts.length === 0 ? BASE_TITLE : `(${counts.join(' · ')}) ${BASE_TITLE}`;
  }
}

export const forkAlerts = new ForkAlerts();
