import type { ForkState } from '../../../shared/fork/fork-record';
import type { ForkListEntry } from '../../../shared/ipc/fork-list-channel';
import { blockedCause, outcomeWords } from './triage-words';

/**
 * What the operator asked the fork list to show (issue 29's triage): a state or "needs your
 * decision", a search and an order. Kept here, for the window's life, rather than in the view: the
 * view is rebuilt each time it is navigated to, and going to a fork and back keeps the list as it was.
 */
export type ForkFilter = ForkState | 'all' | 'needs-decision';
export type ForkOrder = 'newest' | 'oldest' | 'state';

export const forkListQuery = $state<{ filter: ForkFilter; search: string; order: ForkOrder }>({ filter: 'all', search: '', order: 'newest' });

export function matchesFilter(fork: ForkListEntry, filter: ForkFilter): boolean {
  if (filter === 'all') return true;
  if (filter === 'needs-decision') return !('problem' in fork) && fork.needs_decision;
  return fork.state === filter;
}

/** What Find searches in a fork, lower-cased: title, repository, id, profiles, failure codes and the causes shown. */
export function haystackOf(fork: ForkListEntry): string {
  if ('problem' in fork) return `${fork.fork_id}\n${fork.problem}`.toLowerCase();
  const branches = fork.branches.map((b) => `${b.profile_id} ${b.failure_code ?? ''} ${b.blocked_code ?? ''} ${b.state === 'blocked' || b.state === 'unknown' ? blockedCause(b) : ''}`);
  return [fork.title ?? '', fork.repo_name ?? '', fork.fork_id, ...branches, outcomeWords(fork)?.text ?? ''].join('\n').toLowerCase();
}

/**
 * "By state" puts first what waits for the operator: a decision, then a landing, then a blocked
 * fork; then what is under way; then what is over. Newest first within each.
 */
const STATE_RANK: Readonly<Record<ForkState, number>> = { selected: 1, blocked: 2, running: 3, pending: 4, failed: 5, ready: 6, landed: 7, unknown: 8 };

const createdAt = (fork: ForkListEntry): string => ('problem' in fork ? '' : fork.created_at);
const rankOf = (fork: ForkListEntry): number => ('problem' in fork ? STATE_RANK.unknown : fork.needs_decision ? 0 : STATE_RANK[fork.state]);
const newestFirst = (a: ForkListEntry, b: ForkListEntry): number => {
  const [x, y] = [createdAt(a), createdAt(b)];
  return x === y ? (a.fork_id < b.fork_id ? 1 : -1) : x < y ? 1 : -1;
};

/** The forks in the order asked for; unreadable forks (no creation time) always last, in their own block. */
export function ordered(forks: readonly ForkListEntry[], order: ForkOrder): ForkListEntry[] {
  const readableFirst = (a: ForkListEntry, b: ForkListEntry): number => Number('problem' in a) - Number('problem' in b);
  const by =
    order === 'newest'
      ? newestFirst
      : order === 'oldest'
        ? (a: ForkListEntry, b: ForkListEntry) => newestFirst(b, a)
        : (a: ForkListEntry, b: ForkListEntry) => rankOf(a) - rankOf(b) || newestFirst(a, b);
  return [...forks].sort((a, b) => readableFirst(a, b) || by(a, b));
}
