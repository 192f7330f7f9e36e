import { describe, expect, it } from 'vitest';
import type { ForkOutcomeNotice } from '../../../shared/fork/fork-outcome-notice';
import { notifyForkOutcomes } from '../../../main/app/fork-notifications';
import { fakeService } from './fakes';

const FORK = 'fork-01jq0000000000000000000000';
const OTHER = 'fork-01jq0000000000000000000001';

describe('desktop notifications of fork outcomes', () => {
  it('notifies when a fork becomes ready, blocked or failed, once per change', () => {
    const { service, emit } = fakeService(async () => ({ ok: true, value: { forks: [] } }));
    const shown: ForkOutcomeNotice[] = [];
    notifyForkOutcomes(service, (notice) => shown.push(notice));
    emit({ type: 'fork_state', fork_id: FORK, state: 'running', revision: 2 });
    emit({ type: 'branch_state', fork_id: FORK, branch_id: 'branch-claude', state: 'passed', failure_code: null });
    emit({ type: 'fork_state', fork_id: FORK, state: 'ready', revision: 3 });
    // The same state again (a re-read record) is not news.
    emit({ type: 'fork_state', fork_id: FORK, state: 'ready', revision: 4 });
    emit({ type: 'fork_state', fork_id: OTHER, state: 'blocked', revision: 5 });
    emit({ type: 'fork_state', fork_id: FORK, state: 'selected', revision: 6 });
    emit({ type: 'fork_state', fork_id: FORK, state: 'failed', revision: 7 });
    expect(shown).toEqual([
      { title: 'Citadel: fork ready', body: `Fork ${FORK} is ready: compare its branches and select one.` },
      { title: 'Citadel: fork blocked', body: `Fork ${OTHER} is blocked: a branch waits for your decision.` },
      { title: 'Citadel: fork failed', body: `Fork ${FORK} failed.` },
    ]);
  });

  it('stops with its unsubscribe', () => {
    const { service, emit, listeners } = fakeService(async () => ({ ok: true, value: { forks: [] } }));
    const shown: ForkOutcomeNotice[] = [];
    const stop = notifyForkOutcomes(service, (notice) => shown.push(notice));
    stop();
    emit({ type: 'fork_state', fork_id: FORK, state: 'ready', revision: 3 });
    expect(shown).toEqual([]);
    expect(listeners.size).toBe(0);
  });
});
