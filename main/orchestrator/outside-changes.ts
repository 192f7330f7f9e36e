import { stat } from 'node:fs/promises';
import type { ForkEvent } from '../../shared/fork/events';
import type { ForkRecord } from '../../shared/fork/fork-record';
import type { OrchestratorContext } from '../host/context';
import { fileVersion } from './file-version';
import { TrailRelay, type Attempt } from './trail-relay';

// As often as a shell's live view of a fork changes otherwise (a live diff is polled as often).
const POLL_MS = 2_000;
const SETTLE_MS = 250;

export interface OutsideChangeWatch {
  /** Takes an event this process published itself, so the change it reports is not reported again. */
  saw(event: ForkEvent): void;
  stop(): void;
}

export interface OutsideChangeOptions {
  /** Where a change made elsewhere is reported, as the events this process's own changes produce. */
  readonly publish: (event: ForkEvent) => void;
  /** Forks this process drives: their events come from the drive itself. */
  readonly drivenHere: () => readonly string[];
}

interface Known {
  /** The record file's version last read; '' when only this process's events have been seen. */
  readonly file: string;
  readonly state: ForkRecord['state'] | null;
  /** Each branch's state and failure code; null until a record is read or an event seen. */
  readonly branches: ReadonlyMap<string, string> | null;
  /** The attempts its record says are running: their live trails are relayed. */
  readonly running: readonly Attempt[];
}

/** A fork whose record has not been read: nothing of it is known. */
const UNREAD: Known = { file: '', state: null, branches: null, running: [] };

const branchFacts = (state: string, failure: string | null): string => `${state}\n${failure ?? ''}`;

/**
 * Changes to the fork root made by another process (a `citadel fork start` in a terminal, a
 * `fork select` or `fork land` there, another window's drive), reported as this process's own
 * are: a fork_state for a new fork or a new state, a branch_state for each branch whose state or
 * failure moved. Each fork's record is read only when its file changed; the first look, a poll
 * after the watch began, learns what was there before it without reading it, and such a fork is
 * read once its lock is held (another process drives it). The live diff and activities of a
 * branch another process runs are relayed from its attempt's live trail (trail-relay.ts), its last
 * activities before the state change that ends its run, as that drive streams them.
 */
export function watchOutsideChanges(ctx: OrchestratorContext, options: OutsideChangeOptions): OutsideChangeWatch {
  const known = new Map<string, Known>();
  // How many of its own events this process has reported per fork: a read taken while one came
  // may predate it, so it is dropped and taken again at the next look.
  const heard = new Map<string, number>();
  // When this process last reported an event of each fork: a fork it stopped driving while a
  // branch still runs is relayed from then on, not from when the watch began.
  const lastOwn = new Map<string, number>();
  const relay = new TrailRelay(ctx, options.publish);
  const since = Date.now();
  const from = (forkId: string): number => Math.max(since, lastOwn.get(forkId) ?? 0);
  let first = true;
  let polling: Promise<void> | null = null;
  let stopped = false;

  const look = async (): Promise<void> => {
    const driven = new Set(options.drivenHere());
    const changed: { file: string; record: ForkRecord; heard: number }[] = [];
    for (const forkId of await ctx.store.listForkIds()) {
      if (stopped) return;
      const heardBefore = heard.get(forkId) ?? 0;
      const read = await fileVersion(ctx.store.file(forkId, 'record'));
      if (read === null) continue;
      const { version: file, writtenAt } = read;
      const entry = known.get(forkId) ?? UNREAD;
      // The first look reads no record written before the watch began (a thousand forks would be a
      // thousand parses): it learns each file's version; a fork's states are learnt at its first
      // change, or once another process holds its lock (a drive, which may run for long without
      // writing the record), for its running branches' live trails.
      if (entry.file === file || (first && writtenAt <= since)) {
        const learnt = { ...entry, file };
        const drivenElsewhere = learnt.branches === null && !driven.has(forkId) && (await stat(ctx.store.file(forkId, 'lock')).catch(() => null)) !== null;
        const record = drivenElsewhere ? await ctx.store.readRecord(forkId).catch(() => null) : null;
        known.set(forkId, record === null ? learnt : { file, ...summaryOf(record) });
        continue;
      }
      const record = await ctx.store.readRecord(forkId).catch(() => null);
      // Unreadable now: not read again until the file changes (the fork list says what it is).
      if (record === null) known.set(forkId, { ...entry, file });
      else if (driven.has(forkId)) {
        if ((heard.get(forkId) ?? 0) === heardBefore) known.set(forkId, { file, ...summaryOf(record) });
      } else changed.push({ file, record, heard: heardBefore });
    }
    first = false;
    if (changed.length > 0) {
      // This process writes a record before it reports the change: a change read in between is its
      // own, and its event comes within moments. Only what is still unreported after SETTLE_MS is news.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      for (const { file, record, heard: heardBefore } of changed) {
        if (stopped) return;
        if ((heard.get(record.fork_id) ?? 0) !== heardBefore) continue;
        const before = known.get(record.fork_id);
        const now = summaryOf(record);
        known.set(record.fork_id, { file, ...now });
        // What a branch printed last comes before the state change that ends its run, as from its drive.
        for (const attempt of before?.running ?? []) {
          if (!now.running.some((a) => sameAttempt(a, attempt))) await relay.relay(record.fork_id, attempt, { running: false, from: from(record.fork_id) });
        }
        for (const event of changes(before, record, since)) options.publish(event);
      }
    }
    await relayTrails();
  };

  // Each attempt running elsewhere (one that stopped running had its last read as its record moved on).
  const relayTrails = async (): Promise<void> => {
    const driven = new Set(options.drivenHere());
    for (const [forkId, entry] of known) {
      if (driven.has(forkId)) relay.forget(forkId);
      else for (const attempt of entry.running) if (!stopped) await relay.relay(forkId, attempt, { running: true, from: from(forkId) });
    }
  };

  const tick = (): void => {
    polling ??= look()
      .catch(() => undefined)
      .finally(() => (polling = null));
  };
  // No look at once: a window subscribes as it opens, and reads the fork list then itself; what
  // changes meanwhile is written after `since`, which the first look reports.
  const timer = setInterval(tick, POLL_MS);
  timer.unref();
  return {
    saw(event) {
      heard.set(event.fork_id, (heard.get(event.fork_id) ?? 0) + 1);
      lastOwn.set(event.fork_id, Date.now());
      // A fork made here and finished between two looks is known from its state events alone.
      const entry = known.get(event.fork_id) ?? UNREAD;
      if (event.type === 'fork_state') known.set(event.fork_id, { ...entry, state: event.state });
      if (event.type === 'branch_state') {
        known.set(event.fork_id, { ...entry, branches: new Map([...(entry.branches ?? []), [event.branch_id, branchFacts(event.state, event.failure_code)]]) });
      }
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

function summaryOf(record: ForkRecord): Omit<Known, 'file'> {
  return {
    state: record.state,
    branches: new Map(record.branches.map((b) => [b.branch_id, branchFacts(b.state, b.failure_code)])),
    running: record.branches.filter((b) => b.state === 'running').map((b) => ({ branchId: b.branch_id, attempt: b.attempt })),
  };
}

function sameAttempt(a: Attempt, b: Attempt): boolean {
  return a.branchId === b.branchId && a.attempt === b.attempt;
}

/**
 * What moved between what was known of a fork and its record now, branches first, as a drive
 * reports it. A fork never seen is new: all of it is news. Of one that was there before the watch
 * and never read, only what its history records after the watch began.
 */
function changes(before: Known | undefined, record: ForkRecord, since: number): ForkEvent[] {
  const movedSince = (history: readonly { at: string }[]): boolean => Date.parse(history.at(-1)?.at ?? '') > since;
  const events: ForkEvent[] = [];
  for (const branch of record.branches) {
    const was = before?.branches?.get(branch.branch_id);
    if (was === branchFacts(branch.state, branch.failure_code)) continue;
    if (before !== undefined && was === undefined && !movedSince(branch.history)) continue;
    events.push({ type: 'branch_state', fork_id: record.fork_id, branch_id: branch.branch_id, state: branch.state, failure_code: branch.failure_code });
  }
  const forkMoved = before === undefined || (before.state === null ? movedSince(record.history) : before.state !== record.state);
  if (forkMoved) events.push({ type: 'fork_state', fork_id: record.fork_id, state: record.state, revision: record.revision });
  return events;
}
