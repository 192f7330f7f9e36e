import { render, screen, within } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import type { ForkOutcomeNotice } from '../../shared/fork/fork-outcome-notice';
import { ForkAlerts, forkAlerts, type Notifier } from '../../renderer/src/lib/fork-alerts.svelte';
import { forkListOf } from '../../renderer/src/lib/fork-list.svelte';
import ForksView from '../../renderer/src/views/ForksView.svelte';
import { fakeClient } from './support/fake-client';
import { FORK_ID, forkSummary } from './support/fixtures';

const OTHER = 'fork-01jq7m3x9r2v5k8d4f6h0n1p2t';

function notifier(permission: NotificationPermission, answer: NotificationPermission = 'granted'): Notifier & { shown: ForkOutcomeNotice[]; asked: number } {
  const state = { permission, shown: [] as ForkOutcomeNotice[], asked: 0 };
  return {
    get shown() {
      return state.shown;
    },
    get asked() {
      return state.asked;
    },
    permission: () => state.permission,
    request: async () => {
      state.asked += 1;
      state.permission = answer;
      return answer;
    },
    show: (notice) => void state.shown.push(notice),
  };
}

const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('fork alerts: title counts, changes and notifications', () => {
  it('counts running and ready forks in the title and notifies, once granted, when a fork becomes ready', async () => {
    const { client, emit } = fakeClient({ listForks: () => ({ ok: true, value: { forks: [forkSummary({ state: 'running' }), forkSummary({ fork_id: OTHER, state: 'ready' })] } }) });
    const alerts = new ForkAlerts();
    const browser = notifier('default');
    alerts.start(client, browser);
    await flush();
    expect(alerts.title).toBe('(1 running · 1 ready) Citadel Mission Control');
    expect(alerts.permission).toBe('default');

    // Not yet allowed: nothing is shown.
    emit({ type: 'fork_state', fork_id: OTHER, state: 'blocked', revision: 9 });
    await vi.waitFor(() => expect(alerts.changed.has(OTHER)).toBe(true));
    expect(browser.shown).toEqual([]);
    await alerts.allow();
    expect(browser.asked).toBe(1);
    expect(alerts.permission).toBe('granted');

    emit({ type: 'fork_state', fork_id: FORK_ID, state: 'ready', revision: 7 });
    await vi.waitFor(() => expect(browser.shown).toEqual([{ title: 'Citadel: fork ready', body: `Fork ${FORK_ID} is ready: compare its branches and select one.` }]));
    expect(alerts.title).toBe('(1 ready) Citadel Mission Control');
    expect([...alerts.changed].sort()).toEqual([FORK_ID, OTHER].sort());
    alerts.seen(FORK_ID);
    expect([...alerts.changed]).toEqual([OTHER]);
  });

  it('never asks or shows without a browser notifier (the desktop notifies from main)', async () => {
    const { client, emit } = fakeClient({ listForks: () => ({ ok: true, value: { forks: [] } }) });
    const alerts = new ForkAlerts();
    alerts.start(client, null);
    await flush();
    expect(alerts.permission).toBe('unsupported');
    emit({ type: 'fork_state', fork_id: FORK_ID, state: 'ready', revision: 7 });
    await vi.waitFor(() => expect(alerts.title).toBe('(1 ready) Citadel Mission Control'));
  });

  it('keeps each fork’s newest word: a list read newer than an event corrects the title, an older event changes nothing', async () => {
    let reads = 0;
    const { client, emit } = fakeClient({
      listForks: () => ((reads += 1), { ok: true, value: { forks: [forkSummary({ state: reads === 1 ? 'running' : 'ready', revision: reads === 1 ? 7 : 9 })] } }),
    });
    const alerts = new ForkAlerts();
    alerts.start(client, null);
    await vi.waitFor(() => expect(alerts.title).toBe('(1 running) Citadel Mission Control'));
    emit({ type: 'fork_state', fork_id: FORK_ID, state: 'failed', revision: 6 });
    await flush();
    expect(alerts.title).toBe('(1 running) Citadel Mission Control');
    // The stream's open reads the list again (the first read predates the subscription): revision 9 wins.
    forkListOf(client).reload();
    await vi.waitFor(() => expect(alerts.title).toBe('(1 ready) Citadel Mission Control'));
  });

  it('shares one listForks read (and one parse) with the Forks view', async () => {
    const { client, calls } = fakeClient({ listForks: () => ({ ok: true, value: { forks: [forkSummary({ state: 'running' })] } }) });
    const alerts = new ForkAlerts();
    const stop = alerts.start(client, null);
    render(ForksView, { props: { client } });
    await screen.findByRole('table');
    expect(alerts.title).toBe('(1 running) Citadel Mission Control');
    expect(calls.filter((c) => c.channel === 'listForks')).toHaveLength(1);
    stop();
  });

  it('highlights a changed fork in the list', async () => {
    const forks = [forkSummary({ state: 'ready', title: 'Changed one' }), forkSummary({ fork_id: OTHER, state: 'ready', title: 'Quiet one' })];
    const { client } = fakeClient({ listForks: () => ({ ok: true, value: { forks } }) });
    forkAlerts.changed.add(FORK_ID);
    render(ForksView, { props: { client } });
    const row = (await screen.findByRole('link', { name: 'Changed one' })).closest('tr') as HTMLElement;
    expect(row).toHaveClass('changed');
    expect(within(row).getByText('changed')).toBeInTheDocument();
    const other = screen.getByRole('link', { name: 'Quiet one' }).closest('tr') as HTMLElement;
    expect(other).not.toHaveClass('changed');
    expect(within(other).queryByText('changed')).toBeNull();
    forkAlerts.seen(FORK_ID);
  });
});
