import { describe, expect, it } from 'vitest';
import { ForkStatusSchema } from '../../../shared/fork/fork-record';
import { ForkSummarySchema } from '../../../shared/fork/fork-summary';
import { forkListEntryOf, forkSummaryOf } from '../../../shared/fork/fork-summary-of';
import { forkStatus } from '../../component/support/fixtures';

describe('the fork list’s summary of a fork', () => {
  it('carries what a row shows and what keeps it current, and none of the digests or commits', () => {
    const status = forkStatus({ state: 'running', revision: 12, title: 'Fix it', repo_name: 'app' });
    const summary = ForkSummarySchema.parse(forkSummaryOf(status));
    expect(Object.keys(summary).sort()).toEqual(['branches', 'created_at', 'demo', 'fork_id', 'repo_name', 'revision', 'state', 'title', 'title_standing']);
    expect(Object.keys(summary.branches[0] ?? {}).sort()).toEqual(['blocked_reason', 'branch_id', 'failure_code', 'profile_id', 'state']);
    expect(summary).toMatchObject({ fork_id: status.fork_id, state: 'running', revision: 12, title: 'Fix it', repo_name: 'app' });
    expect(JSON.stringify(summary)).not.toContain('sha256:');
  });

  it('is as strict as the status it comes from: a full status is not a summary', () => {
    expect(ForkSummarySchema.safeParse(forkStatus()).success).toBe(false);
    expect(ForkStatusSchema.safeParse(forkSummaryOf(forkStatus())).success).toBe(false);
  });

  it('lists an unreadable fork as its problem, unchanged', () => {
    const problem = { fork_id: 'fork-broken', state: 'unknown' as const, problem: 'FORK_RECORD_INVALID' };
    expect(forkListEntryOf(problem)).toBe(problem);
    expect(forkListEntryOf(forkStatus())).toEqual(forkSummaryOf(forkStatus()));
  });
});
