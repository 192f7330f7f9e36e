import { describe, expect, it } from 'vitest';
import { ForkStatusSchema } from '../../../shared/fork/fork-record';
import { ForkSummarySchema } from '../../../shared/fork/fork-summary';
import { forkListEntryOf, forkSummaryOf, restated } from '../../../shared/fork/fork-summary-of';
import { forkStatus } from '../../component/support/fixtures';

const SINCE = '2026-11-29T20:00:05.000Z';

describe('the fork list’s summary of a fork', () => {
  it('carries what a row shows and what keeps it current, and none of the digests or commits', () => {
    const status = forkStatus({ state: 'running', revision: 12, title: 'Fix it', repo_name: 'app' });
    const summary = ForkSummarySchema.parse(forkSummaryOf(status, SINCE));
    expect(Object.keys(summary).sort()).toEqual([
      'branches',
      'created_at',
      'demo',
      'fork_id',
      'needs_decision',
      'outcome',
      'parent',
      'repo_name',
      'revision',
      'running_since',
      'state',
      'title',
      'title_standing',
    ]);
    expect(Object.keys(summary.branches[0] ?? {}).sort()).toEqual(['blocked_code', 'blocked_reason', 'branch_id', 'failure_code', 'profile_id', 'state']);
    expect(summary).toMatchObject({ fork_id: status.fork_id, state: 'running', revision: 12, title: 'Fix it', repo_name: 'app', running_since: SINCE });
    expect(JSON.stringify(summary)).not.toContain('sha256:');
  });

  it('is as strict as the status it comes from: a full status is not a summary', () => {
    expect(ForkSummarySchema.safeParse(forkStatus()).success).toBe(false);
    expect(ForkStatusSchema.safeParse(forkSummaryOf(forkStatus(), null)).success).toBe(false);
  });

  it('lists an unreadable fork as its problem, unchanged, and a readable one with since when it runs', () => {
    const problem = { fork_id: 'fork-broken', state: 'unknown' as const, problem: 'FORK_RECORD_INVALID' };
    expect(forkListEntryOf(problem)).toBe(problem);
    const running = forkStatus({ state: 'running' });
    expect(forkListEntryOf({ ...running, running_since: SINCE })).toEqual(forkSummaryOf(running, SINCE));
    // Only a running fork has a running time: a stale one is not carried once it has settled.
    expect(forkSummaryOf(forkStatus({ state: 'ready' }), SINCE).running_since).toBeNull();
  });

  it('carries the triage of its branches, and works it out again when an event moves its state', () => {
    const ready = forkSummaryOf(forkStatus({ state: 'ready' }), null);
    expect(ready).toMatchObject({ needs_decision: true, outcome: { kind: 'tie', branch_ids: ['branch-claude', 'branch-codex'] } });
    const selected = restated(ready, 'selected', 9);
    expect(selected).toMatchObject({ state: 'selected', revision: 9, needs_decision: false, outcome: null, running_since: null });
  });
});
