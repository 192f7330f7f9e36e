import type { ForkEvent } from './events';
import type { ForkState } from './fork-record';

/** The fork states an operator wants to hear about while looking elsewhere: work done, or work waiting for them. */
const NOTIFIED: ReadonlySet<ForkState> = new Set<ForkState>(['ready', 'blocked', 'failed']);

const WORDING: Partial<Record<ForkState, string>> = {
  ready: 'is ready: compare its branches and select one.',
  blocked: 'is blocked: a branch waits for your decision.',
  failed: 'failed.',
};

export interface ForkOutcomeNotice {
  readonly title: string;
  readonly body: string;
}

/**
 * The notice for a fork state event, or null when it is not worth one. `previous` is the state
 * last known for that fork (null when none): the same state announced again is not news.
 */
export function forkOutcomeNotice(event: ForkEvent, previous: ForkState | null): ForkOutcomeNotice | null {
  if (event.type !== 'fork_state' || !NOTIFIED.has(event.state) || event.state === previous) return null;
  return { title: `Citadel: fork ${event.state}`, body: `Fork ${event.fork_id} ${WORDING[event.state] ?? event.state}` };
}
