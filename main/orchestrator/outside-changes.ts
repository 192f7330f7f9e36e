import { stat } from 'node:fs/promises';
import type { ForkEvent } from '../../shared/fork/events';
import type { ForkRecord } from '../../shared/fork/fork-record';
import type { OrchestratorContext } from '../host/context';

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
  readonly revision: number;
  /** null until a record is read: every branch's state is then reported, as none is known. */
  readonly branches: ReadonlyMap<string, ForkRecord['branches'][number]['state']> | null;
}

/** A fork whose record has not been read: nothing of it is known. */
const UNREAD: Known = { file: '', state: null, revision: -1, branches: null };

/**
 * Changes to the fork root made by another process (a `citadel fork start` in a terminal, a
 * `fork select` or `fork land` there, another window's drive), reported as this process's own
 * are: a fork_state for a new fork or a new state, a branch_state for each branch whose state
 * moved. Each fork's record is read only when its file changed; the first look, a poll after the
 * watch began, learns what was there before it. Live diffs and runtime output stay with the process that drives the run.
 */
export function watchOutsideChanges(ctx: OrchestratorContext, options: OutsideChangeOptions): OutsideChangeWatch {
  const known = new Map<string, Known>();
  const since = Date.now();
  let first = true;
  let polling: Promise<void> | null = null;
  let stopped = false;

  const look = async (): Promise<void> => {
    const driven = new Set(options.drivenHere());
    const changed: { file: string; record: ForkRecord }[] = [];
    for (const forkId of await ctx.store.listForkIds()) {
      if (stopped) return;
      const version = await fileVersion(ctx.store.file(forkId, 'record'));
      if (version === null) continue;
      const { file, writtenAt } = version;
      if (known.get(forkId)?.file === file) continue;
      // The first look reads no record written before the watch began (a thousand forks would be a
      // thousand parses): it learns each file's version; a fork's states are learnt at its first change.
      if (first && writtenAt <= since) {
        known.set(forkId, { ...(known.get(forkId) ?? UNREAD), file });
        continue;
      }
      const record = await ctx.store.readRecord(forkId).catch(() => null);
      if (record === null) continue;
      if (driven.has(forkId)) known.set(forkId, { file, ...summaryOf(record) });
      else changed.push({ file, record });
    }
    first = false;
    if (changed.length === 0) return;
    // This process writes a record before it reports the change: a change read in between is its
    // own, and its event comes within moments. Only what is still unreported after SETTLE_MS is news.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    for (const { file, record } of changed) {
      if (stopped) return;
      const before = known.get(record.fork_id);
      // A revision this process reported (or a later one) holds nothing it has not said.
      if (before !== undefined && before.revision >= record.revision) {
        known.set(record.fork_id, before.revision > record.revision ? { ...before, file } : { file, ...summaryOf(record) });
        continue;
      }
      known.set(record.fork_id, { file, ...summaryOf(record) });
      for (const event of changes(before, record)) options.publish(event);
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
  return {
    saw(event) {
      // A fork made here and finished between two looks is known from its events alone.
      const entry = known.get(event.fork_id) ?? UNREAD;
      known.set(event.fork_id, entry);
      if (event.type === 'fork_state' && event.revision >= entry.revision) known.set(event.fork_id, { ...entry, state: event.state, revision: event.revision });
      if (event.type === 'branch_state') known.set(event.fork_id, { ...entry, branches: new Map([...(entry.branches ?? []), [event.branch_id, event.state]]) });
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

function summaryOf(record: ForkRecord): Omit<Known, 'file'> {
  return { state: record.state, revision: record.revision, branches: new Map(record.branches.map((b) => [b.branch_id, b.state])) };
}

/** What moved between what was known of a fork and its record now, branches first, as a drive reports it (a fork state only when it changed, or was not known). */
function changes(before: Known | undefined, record: ForkRecord): ForkEvent[] {
  const events: ForkEvent[] = [];
  for (const branch of record.branches) {
    if (before?.branches?.get(branch.branch_id) === branch.state) continue;
    events.push({ type: 'branch_state', fork_id: record.fork_id, branch_id: branch.branch_id, state: branch.state, failure_code: branch.failure_code });
  }
  if (before === undefined || before.state !== record.state) {
    events.push({ type: 'fork_state', fork_id: record.fork_id, state: record.state, revision: record.revision });
  }
  return events;
}

/** The record file's version as the file system tells it (an atomic write replaces the inode) and when it was written, or null when it is gone. */
async function fileVersion(file: string): Promise<{ file: string; writtenAt: number } | null> {
  const facts = await stat(file).catch(() => null);
  return facts === null ? null : { file: `${facts.ino}:${facts.size}:${facts.mtimeMs}`, writtenAt: facts.mtimeMs };
}
