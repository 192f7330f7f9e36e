import type { ForkEvent, PastForkEvent } from '../../../shared/fork/events';
import type { Client } from './client';

export interface TimelineEntry {
  readonly id: number;
  readonly at: Date;
  readonly text: string;
  readonly tone: 'good' | 'bad' | 'neutral';
  /** What the entry was made from, for the live progress of a branch (its clock, diff, activity). */
  readonly event: ForkEvent | PastForkEvent['event'];
}

/** Entries kept per branch: the timeline shows the latest, and memory stays bounded however long a run streams. */
const LIMIT = 200;

/**
 * The timeline of one fork: its past events, rebuilt by the orchestrator from the journal and
 * records (`load`), then every event of the typed stream as it arrives (state changes, runtime
 * phases and output, live diffs, setup and verifier steps), per branch. Events for other forks
 * are ignored.
 */
export class ForkTimeline {
  branches = $state<Record<string, TimelineEntry[]>>({});
  fork = $state<TimelineEntry[]>([]);
  #next = 1;
  #loaded = false;
  // The shell subscribes as it makes the timeline, and reads the past after.
  readonly #listeningSince = Date.now();

  constructor(readonly forkId: string) {}

  /** Records the event when it belongs to this fork; returns whether it did. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a timestamp, never mutated: nothing to react to.
  record(event: ForkEvent, at: Date = new Date()): boolean {
    if (event.fork_id !== this.forkId) return false;
    // Relayed from another process's drive a poll late, it may be one the past already holds.
    const key = activityKey(event);
    if (key !== null && 'branch_id' in event && (this.branches[event.branch_id] ?? []).some((e) => activityKey(e.event) === key)) return true;
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a timestamp, never mutated: nothing to react to.
    this.#add(event, event.type === 'runtime_activity' ? new Date(event.at) : at);
    return true;
  }

  /**
   * Reads the fork's past once and puts it before what has arrived live. A runtime activity is
   * known exactly (its branch, its time and its number in the attempt's trail) and shown once
   * however often it comes (another process's drive is relayed a poll late, into a view that may
   * have read it in the past already). Any other event that arrived while the read ran is in
   * both, so each live entry is dropped when the past holds its twin: the same event (a fork state
   * as the history keeps it counts as the same), recorded no earlier than TWIN_SLACK_MS before
   * this timeline began listening. Each past entry stands for one live
   * entry only, and an older one (an earlier attempt's "running") stands for none, so a repeated
   * event is never lost.
   */
  async load(client: Client): Promise<void> {
    if (this.#loaded) return;
    this.#loaded = true;
    const answer = await client.call('forkTimeline', { fork_id: this.forkId });
    if (!answer.ok) return;
    const liveFork = this.fork;
    const liveBranches = this.branches;
    this.fork = [];
    this.branches = {};
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a timestamp, never mutated: nothing to react to.
    for (const { at, event } of answer.value) this.#add(event, new Date(at));
    const past = [...this.fork, ...Object.values(this.branches).flat()];
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a lookup made once, never rendered: nothing to react to.
    const activities = new Set(past.map((e) => activityKey(e.event)).filter((key) => key !== null));
    const twins = new Twins(past, this.#listeningSince - TWIN_SLACK_MS);
    const isNew = (e: TimelineEntry): boolean => {
      const key = activityKey(e.event);
      return key === null ? !twins.take(e) : !activities.has(key);
    };
    this.fork = trim([...this.fork, ...liveFork.filter(isNew)]);
    for (const [branchId, live] of Object.entries(liveBranches)) {
      this.branches[branchId] = trim([...(this.branches[branchId] ?? []), ...live.filter(isNew)]);
    }
  }

  #add(event: TimelineEntry['event'], at: Date): void {
    const entry: TimelineEntry = { id: this.#next++, at, event, ...describe(event) };
    if (!('branch_id' in event)) this.fork = trim([...this.fork, entry]);
    else this.branches[event.branch_id] = trim([...(this.branches[event.branch_id] ?? []), entry]);
  }
}

// A past event's time comes from the orchestrator's clock, a live one's from the window's: the same
// machine's, read moments apart; a change another process made reaches the window a poll or two
// after it was written (main/orchestrator/outside-changes.ts).
const TWIN_SLACK_MS = 10_000;

/** The recent past entries, counted by what happened, each to be taken as one live entry's twin. */
class Twins {
  readonly #left = new Map<string, number>();

  constructor(past: readonly TimelineEntry[], since: number) {
    for (const entry of past) {
      if (entry.at.getTime() < since) continue;
      const key = twinKey(entry);
      this.#left.set(key, (this.#left.get(key) ?? 0) + 1);
    }
  }

  /** Whether the past holds a twin of `live` not yet taken (and takes it). */
  take(live: TimelineEntry): boolean {
    const key = twinKey(live);
    const left = this.#left.get(key) ?? 0;
    if (left === 0) return false;
    this.#left.set(key, left - 1);
    return true;
  }
}

/** A runtime activity as one string (null for any other event): its time and number make it one of a kind. */
function activityKey(event: TimelineEntry['event']): string | null {
  return event.type === 'runtime_activity' ? `${event.branch_id}\n${event.at}\n${event.seq}` : null;
}

/** What happened, as one string: the branch and the entry's words; a fork state reads the same live and from the history. */
function twinKey(entry: TimelineEntry): string {
  const { event } = entry;
  if (event.type === 'fork_state' || event.type === 'fork_history') return `fork\n${event.state}`;
  return `${'branch_id' in event ? event.branch_id : ''}\n${entry.text}`;
}

/** The latest LIMIT entries; a run's launch (its clock) is kept even when older ones are dropped. */
function trim(entries: TimelineEntry[]): TimelineEntry[] {
  if (entries.length <= LIMIT) return entries;
  const kept = entries.slice(-LIMIT);
  const launch = entries.findLast(isLaunch);
  return launch === undefined || kept.includes(launch) ? kept : [launch, ...kept.slice(1)];
}

function isLaunch(entry: TimelineEntry): boolean {
  return entry.event.type === 'runtime' && entry.event.run !== undefined;
}

function describe(event: TimelineEntry['event']): Pick<TimelineEntry, 'text' | 'tone'> {
  switch (event.type) {
    case 'fork_state':
      return { text: `fork ${event.state} (revision ${event.revision})`, tone: toneOf(event.state) };
    case 'fork_history':
      return { text: `fork ${event.state}`, tone: toneOf(event.state) };
    case 'branch_state':
      return { text: `state ${event.state}${event.failure_code ? ` · ${event.failure_code}` : ''}`, tone: toneOf(event.state) };
    case 'runtime':
      return { text: `runtime ${event.phase.replaceAll('_', ' ')}`, tone: event.phase === 'lost' ? 'bad' : 'neutral' };
    case 'live_diff':
      return { text: `worktree ${diffText(event)}`, tone: 'neutral' };
    case 'runtime_activity':
      // A runtime's own `error` event is often one it recovers from (Codex reports retries so): the branch's outcome says whether it failed.
      return { text: `output: ${event.summary}`, tone: event.kind === 'turn_failed' ? 'bad' : 'neutral' };
    case 'verifier_step':
      return { text: `verifier ${event.step.replaceAll('_', ' ')}: ${event.status.replaceAll('_', ' ')}`, tone: toneOf(event.status) };
    case 'setup_step':
      return { text: `setup ${event.step}: ${event.status.replaceAll('_', ' ')}`, tone: toneOf(event.status) };
    case 'drive_failed':
      return { text: `drive stopped · ${event.code}`, tone: 'bad' };
  }
}

/** "3 files · +12 −4" */
export function diffText(diff: { files_changed: number; insertions: number; deletions: number }): string {
  return `${diff.files_changed} file${diff.files_changed === 1 ? '' : 's'} · +${diff.insertions} −${diff.deletions}`;
}

function toneOf(state: string): TimelineEntry['tone'] {
  if (state === 'passed' || state === 'ready' || state === 'landed') return 'good';
  if (state === 'failed' || state === 'blocked' || state === 'unknown') return 'bad';
  return 'neutral';
}
