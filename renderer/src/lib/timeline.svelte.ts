import type { ForkEvent } from '../../../shared/fork/events';

export interface TimelineEntry {
  readonly id: number;
  readonly at: Date;
  readonly text: string;
  readonly tone: 'good' | 'bad' | 'neutral';
}

/** Entries kept per branch: the timeline shows the latest, and memory stays bounded however long a run streams. */
const LIMIT = 200;

/**
 * The live timeline of one fork, built only from the typed event stream: state changes, runtime
 * phases and verifier steps, per branch. Events for other forks are ignored.
 */
export class ForkTimeline {
  branches = $state<Record<string, TimelineEntry[]>>({});
  fork = $state<TimelineEntry[]>([]);
  #next = 1;

  constructor(readonly forkId: string) {}

  /** Records the event when it belongs to this fork; returns whether it did. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a timestamp, never mutated: nothing to react to.
  record(event: ForkEvent, at: Date = new Date()): boolean {
    if (event.fork_id !== this.forkId) return false;
    const entry: TimelineEntry = { id: this.#next++, at, ...describe(event) };
    if (event.type === 'fork_state' || event.type === 'drive_failed') this.fork = [...this.fork, entry].slice(-LIMIT);
    else this.branches[event.branch_id] = [...(this.branches[event.branch_id] ?? []), entry].slice(-LIMIT);
    return true;
  }
}

function describe(event: ForkEvent): Pick<TimelineEntry, 'text' | 'tone'> {
  switch (event.type) {
    case 'fork_state':
      return { text: `fork ${event.state} (revision ${event.revision})`, tone: toneOf(event.state) };
    case 'branch_state':
      return { text: `state ${event.state}${event.failure_code ? ` · ${event.failure_code}` : ''}`, tone: toneOf(event.state) };
    case 'runtime':
      return { text: `runtime ${event.phase.replaceAll('_', ' ')}`, tone: event.phase === 'lost' ? 'bad' : 'neutral' };
    case 'verifier_step':
      return { text: `verifier ${event.step.replaceAll('_', ' ')}: ${event.status.replaceAll('_', ' ')}`, tone: toneOf(event.status) };
    case 'setup_step':
      return { text: `setup ${event.step}: ${event.status.replaceAll('_', ' ')}`, tone: toneOf(event.status) };
    case 'drive_failed':
      return { text: `drive stopped · ${event.code}`, tone: 'bad' };
  }
}

function toneOf(state: string): TimelineEntry['tone'] {
  if (state === 'passed' || state === 'ready' || state === 'landed') return 'good';
  if (state === 'failed' || state === 'blocked' || state === 'unknown') return 'bad';
  return 'neutral';
}
