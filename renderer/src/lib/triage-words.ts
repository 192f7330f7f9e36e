import type { ForkSummary } from '../../../shared/fork/fork-summary';

/**
 * The fork list's words for what a fork and its branches wait on (issue 29's triage): short
 * causes, not codes, since a row has a few words of room. The codes stay searchable and are shown
 * in full on the fork's page. Zod-free: the list is the first page.
 */

type ListedBranch = ForkSummary['branches'][number];

/** Why a branch could not be started, by the code its start was refused with. */
const NOT_STARTED: Readonly<Record<string, string>> = {
  SETUP_FAILED: 'setup failed',
  SETUP_REGISTRY_UNSUPPORTED: 'setup needs an unsupported package registry',
  SETUP_CACHE_UNSAFE: 'setup cache unsafe',
  SANDBOX_UNAVAILABLE: 'sandbox unavailable',
  EGRESS_PROVIDER_UNSUPPORTED: 'provider not supported by the gateway',
  RUNTIME_NOT_FOUND: 'runtime not installed',
  RUNTIME_AUTH_MISSING: 'no credential for the runtime',
  CREDENTIAL_REFRESH_FAILED: 'credential refresh failed',
  PORTS_UNAVAILABLE: 'no free ports',
  WORKTREE_CONFLICT: 'worktree in the way',
  WORKTREE_MISSING: 'worktree missing',
  SUPERVISOR_START_FAILED: 'supervisor did not start',
  GIT_FAILED: 'git failed',
};

const BLOCKED: Readonly<Record<string, string>> = {
  launch_in_doubt: 'may not have started',
  process_lost: 'runtime process lost',
  collect_failed: 'result not collected',
  contract_unverifiable: 'contract changed since the fork began',
};

/** Why a blocked (or unknown) branch waits, in a few words. */
export function blockedCause(branch: Pick<ListedBranch, 'state' | 'blocked_reason' | 'blocked_code'>): string {
  if (branch.state === 'unknown') return 'state unknown';
  const { blocked_reason: reason, blocked_code: code } = branch;
  if (reason === null) return 'blocked';
  if (reason !== 'start_refused') return BLOCKED[reason] ?? reason;
  if (code === null) return 'could not start';
  return NOT_STARTED[code] ?? `could not start (${code})`;
}

/** A branch chip's words: its profile, its state, and why it failed (the code) or waits (the cause). */
export function chipText(b: ListedBranch): string {
  if (b.state === 'blocked' || b.state === 'unknown') return `${b.profile_id} ${b.state}: ${blockedCause(b)}`;
  return `${b.profile_id} ${b.state}${b.failure_code === null ? '' : `: ${b.failure_code}`}`;
}

/** A settled fork's outcome in words, with its tone; null while it runs or once decided. */
export function outcomeWords(fork: Pick<ForkSummary, 'outcome' | 'branches'>): { text: string; tone: string } | null {
  const { outcome } = fork;
  if (outcome === null) return null;
  const ids = outcome.branch_ids;
  switch (outcome.kind) {
    case 'recommend':
      return { text: `recommend ${ids.join(', ')}`, tone: 'tone-good' };
    case 'tie':
      return { text: `tie: ${ids.join(', ')}`, tone: 'tone-warn' };
    case 'one_passed':
      return { text: `only ${ids.join(', ')} passed`, tone: 'tone-warn' };
    case 'all_failed':
      return { text: 'all failed', tone: 'tone-bad' };
    case 'blocked': {
      const first = fork.branches.find((b) => b.branch_id === ids[0]);
      const more = ids.length > 1 ? ` (+${ids.length - 1} more)` : '';
      return { text: `blocked: ${first === undefined ? 'a branch waits' : blockedCause(first)}${more}`, tone: 'tone-bad' };
    }
  }
}

/** How long a running fork has run, e.g. "45 s", "3 min 05 s", "2 h 10 min". */
export function elapsedWords(sinceIso: string, nowMs: number): string {
  const seconds = Math.max(0, Math.floor((nowMs - Date.parse(sinceIso)) / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${String(s).padStart(2, '0')} s`;
  return `${s} s`;
}
