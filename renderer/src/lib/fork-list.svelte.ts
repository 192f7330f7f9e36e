import { forkSummaryOf, restated } from '../../../shared/fork/fork-summary-of';
import type { ForkListEntry, Reply } from '../../../shared/ipc/contract';
import type { Client } from './client';
import { coalesce } from './coalesce';
import { FORK_LIST_REQUEST } from './transport';

/**
 * The window's one fork list: every reader (the Forks view, the fork alerts) shares one listForks
 * read and one parse of it, so a thousand forks are fetched and validated once, not once per
 * reader. It is kept current from fork_state events (a fork's branch chips from its own status,
 * read again on a branch_state event) and read again when the stream (re)connects.
 */
export class ForkList {
  reply = $state.raw<Reply<'listForks'> | null>(null);
  readonly #client: Client;
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- callbacks, not state: nothing renders from this set.
  readonly #readers = new Set<(forks: readonly ForkListEntry[]) => void>();
  #holders = 0;
  // One coalesced status read per fork whose branches moved (a burst costs at most two reads of it).
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- callbacks, not state: nothing renders from this map.
  readonly #branchReads = new Map<string, () => void>();
  #unsubscribe: (() => void) | null = null;
  #loading = false;

  constructor(client: Client) {
    this.#client = client;
  }

  // One read at a time, and one more after it when asked meanwhile: a burst of events costs at
  // most two reads, and the last answer always postdates the last event.
  readonly #load = coalesce(async () => {
    this.#loading = true;
    const reply = await this.#client.call('listForks', FORK_LIST_REQUEST);
    this.#loading = false;
    this.reply = reply;
    if (reply.ok) for (const reader of this.#readers) reader(reply.value.forks);
  });

  /** Reads again now (or after the read under way), e.g. the operator's "Try again". */
  reload(): void {
    this.#load();
  }

  /**
   * Keeps the list live while held; `onRead` sees every list read from then on. A new holder joins
   * a read under way, or asks for a fresh one (branch chips change without a fork_state event).
   */
  hold(onRead?: (forks: readonly ForkListEntry[]) => void): () => void {
    if (onRead !== undefined) this.#readers.add(onRead);
    this.#holders += 1;
    this.#unsubscribe ??= this.#client.onEvent((event) => {
      if (event.type === 'fork_state') this.#apply(event);
      if (event.type === 'branch_state') this.#branchMoved(event.fork_id);
    }, this.#load);
    if (!this.#loading) this.#load();
    return () => {
      if (onRead !== undefined) this.#readers.delete(onRead);
      this.#holders -= 1;
      if (this.#holders === 0) {
        this.#unsubscribe?.();
        this.#unsubscribe = null;
      }
    };
  }

  #apply(event: { fork_id: string; state: ForkListEntry['state']; revision: number }): void {
    const reply = this.reply;
    // The list being read may predate this event: read it again rather than drop the event.
    if (this.#loading || reply === null || !reply.ok) return this.#load();
    const { forks } = reply.value;
    const index = forks.findIndex((f) => f.fork_id === event.fork_id);
    const known = forks[index];
    // A fork this list has not seen yet (started elsewhere): read the list again.
    if (known === undefined || 'problem' in known) return this.#load();
    // Events can reach the list after a read that already holds a newer revision (client.ts).
    if (event.revision < known.revision) return;
    // A fork that starts running: since when is in its record, not in the event.
    if (event.state === 'running' && known.state !== 'running') return this.#load();
    const next = [...forks];
    next[index] = restated(known, event.state, event.revision);
    this.reply = { ok: true, value: { forks: next } };
  }

  /** A branch of a fork changed: its chips come from the fork's own status, not the whole list again (finding its follow-ups stats each fork's contract; only a changed one is read). */
  #branchMoved(forkId: string): void {
    const reply = this.reply;
    if (this.#loading || reply === null || !reply.ok) return this.#load();
    let read = this.#branchReads.get(forkId);
    if (read === undefined) {
      read = coalesce(() => this.#readOne(forkId));
      this.#branchReads.set(forkId, read);
    }
    read();
  }

  async #readOne(forkId: string): Promise<void> {
    const answer = await this.#client.call('forkStatus', { fork_id: forkId });
    const reply = this.reply;
    if (this.#loading || reply === null || !reply.ok) return;
    const { forks } = reply.value;
    const index = forks.findIndex((f) => f.fork_id === forkId);
    const known = forks[index];
    // Gone, unreadable or not listed yet: the list as a whole says what it is now.
    if (!answer.ok || known === undefined || 'problem' in known) return this.#load();
    // A read (or event) already holds a newer revision: this answer is older news.
    if (answer.value.revision < known.revision) return;
    // Started running since the list was read: since when is in its record, which the list reads.
    if (answer.value.state === 'running' && known.state !== 'running') return this.#load();
    const next = [...forks];
    next[index] = forkSummaryOf(answer.value, known.running_since);
    this.reply = { ok: true, value: { forks: next } };
  }
}

const lists = new WeakMap<Client, ForkList>();

/** The one fork list of this client (one per window in the app; one per fake client in tests). */
export function forkListOf(client: Client): ForkList {
  let list = lists.get(client);
  if (list === undefined) {
    list = new ForkList(client);
    lists.set(client, list);
  }
  return list;
}
