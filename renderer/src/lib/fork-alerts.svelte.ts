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

type Known = { readonly state: ForkState; readonly revision: number };

/**
 * A copy of `states` with each entry that is newer than what is known: a higher revision, or, with
 * `ties`, the same one (an event is the live word on its revision; a list read that ties is not news).
 */
function merged(states: ReadonlyMap<string, Known>, entries: Iterable<readonly [string, Known]>, ties: boolean): ReadonlyMap<string, Known> {
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a fresh copy, never changed once returned: the state holds it whole.
  const next = new Map(states);
  for (const [id, entry] of entries) {
    const known = next.get(id);
    if (known === undefined || entry.revision > known.revision || (ties && entry.revision === known.revision)) next.set(id, entry);
  }
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
  #states = $state.raw<ReadonlyMap<string, Known>>(new Map());
  readonly changed = new SvelteSet<string>();
  permission = $state<NotificationPermission | 'unsupported'>('unsupported');
  #notifier: Notifier | null = null;

  start(client: Client, notifier: Notifier | null): () => void {
    this.#notifier = notifier;
    this.permission = notifier?.permission() ?? 'unsupported';
    const unsubscribe = client.onEvent((event) => {
      if (event.type !== 'fork_state') return;
      const before = this.#states.get(event.fork_id);
      // An event older than what a list read already showed says nothing new.
      if (before !== undefined && event.revision < before.revision) return;
      const previous = before?.state ?? null;
      this.#states = merged(this.#states, [[event.fork_id, { state: event.state, revision: event.revision }]], true);
      if (previous !== event.state) this.changed.add(event.fork_id);
      const notice = forkOutcomeNotice(event, previous);
      if (notice !== null && this.permission === 'granted') this.#notifier?.show(notice);
    });
    // The Forks view's own list: one read (and one parse) serves both, and re-reads on reconnect;
    // a read newer than an event (the first read predates the subscription) corrects it.
    const release = forkListOf(client).hold((forks) => {
      this.#states = merged(
        this.#states,
        // An unreadable fork has no revision: any readable word on it is newer.
        forks.map((fork) => [fork.fork_id, { state: fork.state, revision: 'problem' in fork ? -1 : fork.revision }] as const),
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
    for (const { state } of this.#states.values()) {
      if (state === 'running') running += 1;
      else if (state === 'ready') ready += 1;
    }
    const counts = [running > 0 ? `${running} running` : null, ready > 0 ? `${ready} ready` : null].filter((part) => part !== null);
    return counts.length === 0 ? BASE_TITLE : `(${counts.join(' · ')}) ${BASE_TITLE}`;
  }
}

export const forkAlerts = new ForkAlerts();
