import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { FORK_STATES } from '../../shared/fork/fork-record';
import type { ForkListEntry } from '../../shared/ipc/contract';
import ForksView from '../../renderer/src/views/ForksView.svelte';
import { proofCache } from '../../renderer/src/lib/proof-cache.svelte';
import { fakeClient } from './support/fake-client';
import { digest, forkStatus } from './support/fixtures';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const forkId = (n: number): string => `fork-${n.toString(32).padStart(26, '0').replace(/[a-v]/g, (c) => CROCKFORD[parseInt(c, 32)] ?? '0')}`;

function manyForks(count: number): ForkListEntry[] {
  return Array.from({ length: count }, (_, n) =>
    forkStatus({ fork_id: forkId(n), state: FORK_STATES[n % FORK_STATES.length] ?? 'pending', demo: n % 10 === 0, revision: n }),
  );
}

// A selector rather than a role query: jsdom's role computation over a thousand rows takes seconds.
const bodyRows = (): HTMLElement[] => [...screen.getByRole('table').querySelectorAll<HTMLElement>('tbody tr')];

describe('fork list', () => {
  it('renders a thousand forks from one call, with no per-row fetch', async () => {
    const forks = manyForks(1000);
    const { client, calls } = fakeClient({ listForks: () => ({ ok: true, value: { forks } }) });
    render(ForksView, { props: { client } });

    await screen.findByRole('table');
    expect(bodyRows()).toHaveLength(1000);
    expect(calls).toEqual([{ channel: 'listForks', request: { state: null } }]);
    expect(bodyRows().filter((row) => row.textContent?.includes('[demo]'))).toHaveLength(100);
  });

  it('filters by state and updates a row in place from a fork_state event', async () => {
    const forks = manyForks(16);
    const { client, calls, emit } = fakeClient({ listForks: () => ({ ok: true, value: { forks } }) });
    render(ForksView, { props: { client } });
    await screen.findByRole('table');

    await fireEvent.change(screen.getByLabelText('Show'), { target: { value: 'running' } });
    expect(bodyRows()).toHaveLength(2);
    expect(screen.getByRole('status')).toHaveTextContent('2 of 16 forks shown');

    emit({ type: 'fork_state', fork_id: forkId(1), state: 'ready', revision: 99 });
    await screen.findByText('1 of 16 forks shown');
    expect(bodyRows()).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it('shows verified receipts only where a proof is known for the current revision', async () => {
    const forks = manyForks(2);
    const [first, second] = forks;
    if (first === undefined || second === undefined || 'problem' in first || 'problem' in second) throw new Error('fixture');
    proofCache.remember(first.revision, {
      fork_id: first.fork_id,
      report_digest: digest('report'),
      branches: 2,
      verified_receipts: 1,
      comparable: 1,
      model_proof: { passed: 0, failed: 0, unknown: 2 },
      outcome: 'insufficient-evidence',
      recommended_branch_id: null,
      containment: { contained: 0, runtime_only: 0 },
    });
    proofCache.remember(second.revision + 1, {
      fork_id: second.fork_id,
      report_digest: digest('stale'),
      branches: 2,
      verified_receipts: 2,
      comparable: 2,
      model_proof: { passed: 2, failed: 0, unknown: 0 },
      outcome: 'tie',
      recommended_branch_id: null,
      containment: { contained: 0, runtime_only: 0 },
    });
    const { client } = fakeClient({ listForks: () => ({ ok: true, value: { forks } }) });
    render(ForksView, { props: { client } });
    await screen.findByRole('table');
    const [row1, row2] = bodyRows();
    expect(row1).toHaveTextContent('1 of 2');
    expect(row2).toHaveTextContent('unknown');
    expect(row2).not.toHaveTextContent('2 of 2');
  });

  it('designs the empty and the unreadable cases', async () => {
    const { client } = fakeClient({ listForks: () => ({ ok: true, value: { forks: [] } }) });
    render(ForksView, { props: { client } });
    expect(await screen.findByRole('heading', { name: 'No forks yet' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /start the first fork/i })).toHaveAttribute('href', '#/new');
  });

  it('lists an unreadable fork as unknown with its problem code', async () => {
    const { client } = fakeClient({
      listForks: () => ({ ok: true, value: { forks: [{ fork_id: 'fork-broken', state: 'unknown', problem: 'FORK_RECORD_INVALID' }] } }),
    });
    render(ForksView, { props: { client } });
    const [row] = (await screen.findByRole('table')) && bodyRows();
    expect(row).toHaveTextContent('unknown');
    expect(row).toHaveTextContent('FORK_RECORD_INVALID');
  });

  it('reads the list again when a fork_state event arrives while the list is being read', async () => {
    const before = manyForks(4);
    const after = manyForks(4);
    after[1] = forkStatus({ fork_id: forkId(1), state: 'ready', revision: 99 });
    let answer!: (forks: ForkListEntry[]) => void;
    let reads = 0;
    const { client, calls, emit } = fakeClient({
      listForks: () => {
        reads += 1;
        // The first read was taken before the event: it answers with the old states, late.
        return reads === 1 ? new Promise((resolve) => (answer = (forks) => resolve({ ok: true, value: { forks } }))) : { ok: true, value: { forks: after } };
      },
    });
    render(ForksView, { props: { client } });
    emit({ type: 'fork_state', fork_id: forkId(1), state: 'ready', revision: 99 });
    answer(before);
    await fireEvent.change(await screen.findByLabelText('Show'), { target: { value: 'ready' } });
    await screen.findByText('2 of 4 forks shown');
    expect(calls.filter((c) => c.channel === 'listForks')).toHaveLength(2);
  });
});
