import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FORK_STATES } from '../../shared/fork/fork-states';
import type { ForkStatus } from '../../shared/fork/fork-record';
import type { ForkListEntry } from '../../shared/ipc/contract';
import ForksView from '../../renderer/src/views/ForksView.svelte';
import { forkAlerts } from '../../renderer/src/lib/fork-alerts.svelte';
import { forkListQuery } from '../../renderer/src/lib/fork-list-query.svelte';
import { proofCache } from '../../renderer/src/lib/proof-cache.svelte';
import { fakeClient } from './support/fake-client';
import { digest, forkStatus, forkSummary } from './support/fixtures';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const forkId = (n: number): string => `fork-${n.toString(32).padStart(26, '0').replace(/[a-v]/g, (c) => CROCKFORD[parseInt(c, 32)] ?? '0')}`;

function manyForks(count: number): ForkListEntry[] {
  return Array.from({ length: count }, (_, n) =>
    forkSummary({
      fork_id: forkId(n),
      state: FORK_STATES[n % FORK_STATES.length] ?? 'pending',
      demo: n % 10 === 0,
      revision: n,
      // One minute apart, so the list (newest first) shows them in reverse order.
      created_at: new Date(Date.UTC(2026, 10, 1) + n * 60_000).toISOString(),
      title: `Objective number ${n}`,
      title_standing: 'verified',
      repo_name: n % 2 === 0 ? 'payments' : 'web-app',
    }),
  );
}

// A selector rather than a role query: jsdom's role computation over a thousand rows takes seconds.
const bodyRows = (): HTMLElement[] => [...screen.getByRole('table').querySelectorAll<HTMLElement>('tbody tr')];

// The list's filter, search and order outlive the view (they survive navigation): each test starts from the defaults.
afterEach(() => {
  forkListQuery.filter = 'all';
  forkListQuery.search = '';
  forkListQuery.order = 'newest';
});

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

  it('updates a shown row in place from events: its state, then the changed mark; an older event changes nothing', async () => {
    const forks = manyForks(3);
    const { client, emit } = fakeClient({ listForks: () => ({ ok: true, value: { forks } }) });
    render(ForksView, { props: { client } });
    await screen.findByRole('table');
    const rowOf = (n: number) => bodyRows().find((row) => row.textContent?.includes(forkId(n))) as HTMLElement;
    const before = rowOf(1);
    expect(within(before).getByText('running')).toBeInTheDocument();
    emit({ type: 'fork_state', fork_id: forkId(1), state: 'ready', revision: 50 });
    await vi.waitFor(() => expect(within(rowOf(1)).getByText('ready')).toBeInTheDocument());
    // The same row element, refilled.
    expect(rowOf(1)).toBe(before);
    // The window's alerts (started by main.ts) mark it changed: the row shows that too.
    forkAlerts.changed.add(forkId(1));
    await vi.waitFor(() => expect(rowOf(1)).toHaveClass('changed'));
    expect(within(rowOf(1)).getByText('changed')).toBeInTheDocument();
    forkAlerts.changed.delete(forkId(1));
    emit({ type: 'fork_state', fork_id: forkId(1), state: 'failed', revision: 49 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(within(rowOf(1)).queryByText('failed')).toBeNull();
    expect(within(rowOf(1)).getByText('ready')).toBeInTheDocument();
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
    // Newest first: the second fork is the first row.
    const [row2, row1] = bodyRows();
    expect(row1).toHaveTextContent('1 of 2 receipts verified');
    // Not known for the current revision: nothing is said, rather than "unknown" on every row.
    expect(row2).not.toHaveTextContent('receipts verified');
    expect(row2).not.toHaveTextContent('unknown');
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
    after[1] = forkSummary({ fork_id: forkId(1), state: 'ready', revision: 99 });
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
    // Events reach the list once the contract's schemas have loaded (lib/client.ts), already
    // loaded here (setup.ts): a macrotask later the event has arrived, while the first read is out.
    await new Promise((resolve) => setTimeout(resolve, 0));
    answer(before);
    await fireEvent.change(await screen.findByLabelText('Show'), { target: { value: 'ready' } });
    await screen.findByText('2 of 4 forks shown');
    expect(calls.filter((c) => c.channel === 'listForks')).toHaveLength(2);
  });

  it("refreshes a fork's branch chips from its own status on a branch_state event, not from a read of every fork; an older status changes nothing", async () => {
    const forks = manyForks(3).map((fork) => ('problem' in fork ? fork : { ...fork, state: 'running' as const, branches: fork.branches.map((b) => ({ ...b, state: 'running' as const })) }));
    const branch = (profile: string, state: 'running' | 'passed' | 'failed', failure: 'VERIFIER_FAILED' | null = null) =>
      ({ branch_id: `branch-${profile}`, profile_id: profile, runtime: profile, state, failure_code: failure, blocked_reason: null, blocked_code: null, attempt: 1 }) as const;
    const statuses = [
      forkStatus({ fork_id: forkId(1), state: 'running', revision: 1, branches: [branch('claude', 'running'), branch('codex', 'failed', 'VERIFIER_FAILED')] }),
      forkStatus({ fork_id: forkId(1), state: 'running', revision: 0, branches: [branch('claude', 'passed'), branch('codex', 'failed', 'VERIFIER_FAILED')] }),
    ];
    const { client, calls, emit } = fakeClient({
      listForks: () => ({ ok: true, value: { forks } }),
      forkStatus: () => ({ ok: true, value: statuses.shift() ?? forkStatus({ fork_id: forkId(1), revision: 0 }) }),
    });
    render(ForksView, { props: { client } });
    await screen.findByRole('table');
    const chipsOf = (n: number) => [...(bodyRows().find((row) => row.textContent?.includes(forkId(n)))?.querySelectorAll('li') ?? [])].map((li) => li.textContent);
    expect(chipsOf(1)).toEqual(['claude running', 'codex running']);

    emit({ type: 'branch_state', fork_id: forkId(1), branch_id: 'branch-codex', state: 'failed', failure_code: 'VERIFIER_FAILED' });
    await vi.waitFor(() => expect(chipsOf(1)).toEqual(['claude running', 'codex failed: VERIFIER_FAILED']));
    expect(calls.map((c) => c.channel)).toEqual(['listForks', 'forkStatus']);
    expect(calls[1]?.request).toEqual({ fork_id: forkId(1) });

    // An answer older than what the list holds (revision 0 < 1) is not shown.
    emit({ type: 'branch_state', fork_id: forkId(1), branch_id: 'branch-claude', state: 'passed', failure_code: null });
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(chipsOf(1)).toEqual(['claude running', 'codex failed: VERIFIER_FAILED']);
    expect(chipsOf(0)).toEqual(['claude running', 'codex running']);
  });

  describe('telling forks apart', () => {
    afterEach(() => vi.useRealTimers());

    it('shows each fork newest first with its title, repository, age and per-branch outcomes', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date(Date.UTC(2026, 10, 1) + 2 * 60_000 + 5 * 60_000));
      const forks = manyForks(3);
      const last = forks[2];
      if (last === undefined || 'problem' in last) throw new Error('fixture');
      forks[2] = {
        ...last,
        title: null,
        branches: [
          { branch_id: 'branch-claude', profile_id: 'claude', state: 'passed', failure_code: null, blocked_reason: null, blocked_code: null },
          { branch_id: 'branch-codex', profile_id: 'codex', state: 'failed', failure_code: 'VERIFIER_FAILED', blocked_reason: null, blocked_code: null },
        ],
      };
      const { client } = fakeClient({ listForks: () => ({ ok: true, value: { forks } }) });
      render(ForksView, { props: { client } });
      await screen.findByRole('table');
      const rows = bodyRows();
      expect(rows.map((row) => row.querySelector('code')?.textContent)).toEqual([forkId(2), forkId(1), forkId(0)]);
      const [newest, middle, oldest] = rows;
      expect(newest).toHaveTextContent('untitled fork');
      expect(within(newest!).getByRole('link', { name: 'untitled fork' })).toHaveAttribute('href', `#/fork/${forkId(2)}`);
      expect(within(newest!).getByRole('list', { name: '2 branches' })).toHaveTextContent('claude passed');
      expect(within(newest!).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['claude passed', 'codex failed: VERIFIER_FAILED']);
      expect(newest).toHaveTextContent('payments');
      expect(within(middle!).getByRole('link', { name: 'Objective number 1' })).toBeInTheDocument();
      expect(middle).toHaveTextContent('web-app');
      const age = oldest!.querySelector('time');
      expect(age).toHaveTextContent('7 min ago');
      expect(age).toHaveAttribute('datetime', new Date(Date.UTC(2026, 10, 1)).toISOString());
      expect(age?.getAttribute('title')).toMatch(/2026/);
    });

    it('shows a hostile profile name in a branch chip as text, never as markup', async () => {
      const [fork] = manyForks(1);
      if (fork === undefined || 'problem' in fork) throw new Error('fixture');
      const hostile = '<img src=x onerror="globalThis.pwned=1">&amp;';
      const branches = fork.branches.map((b, i) => (i === 0 ? { ...b, profile_id: hostile } : b));
      const { client } = fakeClient({ listForks: () => ({ ok: true, value: { forks: [{ ...fork, branches }] } }) });
      render(ForksView, { props: { client } });
      await screen.findByRole('table');
      const chips = within(screen.getByRole('list', { name: `${branches.length} branches` })).getAllByRole('listitem');
      expect(chips[0]).toHaveTextContent(`${hostile} passed`, { normalizeWhitespace: false });
      expect(screen.getByRole('table').querySelector('img')).toBeNull();
    });

    it('finds forks by title, repository or fork ID, together with the state filter', async () => {
      const forks = manyForks(16);
      const { client, calls } = fakeClient({ listForks: () => ({ ok: true, value: { forks } }) });
      render(ForksView, { props: { client } });
      await screen.findByRole('table');
      const find = screen.getByLabelText('Find');

      await fireEvent.input(find, { target: { value: 'number 12' } });
      expect(bodyRows()).toHaveLength(1);
      expect(screen.getByRole('status')).toHaveTextContent('1 of 16 forks shown');
      await fireEvent.input(find, { target: { value: '  WEB-APP ' } });
      expect(bodyRows()).toHaveLength(8);
      await fireEvent.input(find, { target: { value: forkId(5).slice(-6) } });
      expect(bodyRows().map((row) => row.querySelector('code')?.textContent)).toEqual([forkId(5)]);

      await fireEvent.input(find, { target: { value: 'payments' } });
      await fireEvent.change(screen.getByLabelText('Show'), { target: { value: 'running' } });
      // running is every 8th fork from 1: 1 and 9, both web-app.
      expect(await screen.findByRole('heading', { name: 'No running forks match “payments”' })).toBeInTheDocument();
      await fireEvent.click(screen.getByRole('button', { name: 'Show every fork' }));
      expect(bodyRows()).toHaveLength(16);
      expect(find).toHaveValue('');
      expect(calls).toHaveLength(1);
    });
  });
});

describe('triage', () => {
  type Branch = ForkStatus['branches'][number];
  const b = (profile: string, state: Branch['state'], extra: Partial<Branch> = {}): Branch => ({
    branch_id: `branch-${profile}`,
    profile_id: profile,
    runtime: 'claude',
    state,
    failure_code: null,
    blocked_reason: null,
    blocked_code: null,
    attempt: 1,
    ...extra,
  });
  const verifierFailed = (profile: string) => b(profile, 'failed', { failure_code: 'VERIFIER_FAILED' });
  const T0 = Date.UTC(2026, 10, 1);
  const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
  const RUNNING_SINCE = at(60);
  // One fork per outcome, a minute apart (n is its age order: the highest is the newest).
  const triageForks = (): ForkListEntry[] => [
    forkSummary({ fork_id: forkId(0), created_at: at(0), title: 'Recommend one', state: 'ready', branches: [b('claude', 'passed'), verifierFailed('codex'), verifierFailed('gemini')] }),
    forkSummary({ fork_id: forkId(1), created_at: at(1), title: 'All failed', state: 'ready', branches: [verifierFailed('claude'), verifierFailed('codex'), verifierFailed('gemini')] }),
    forkSummary({
      fork_id: forkId(2),
      created_at: at(2),
      title: 'Setup broke',
      state: 'blocked',
      branches: [b('claude', 'blocked', { blocked_reason: 'start_refused', blocked_code: 'SETUP_FAILED' }), b('codex', 'failed', { failure_code: 'RUNTIME_EXITED_NONZERO' })],
    }),
    forkSummary({ fork_id: forkId(3), created_at: at(3), title: 'One kept', state: 'failed', branches: [b('claude', 'passed'), b('codex', 'failed', { failure_code: 'STOPPED_BY_OPERATOR' })] }),
    forkSummary({ fork_id: forkId(4), created_at: at(4), title: 'Still going', state: 'running', branches: [b('claude', 'running'), b('codex', 'passed')] }, RUNNING_SINCE),
    forkSummary({ fork_id: forkId(5), created_at: at(5), title: 'Done and landed', state: 'landed', branches: [b('claude', 'passed'), b('codex', 'passed')] }),
    forkSummary({ fork_id: forkId(6), created_at: at(6), title: 'Two passed', state: 'ready', branches: [b('claude', 'passed'), b('codex', 'passed')] }),
  ];
  const rowOf = (title: string): HTMLElement => {
    const row = bodyRows().find((r) => within(r).queryByRole('link', { name: title }) !== null);
    if (row === undefined) throw new Error(`no row ${title}`);
    return row;
  };
  const titles = (): string[] => bodyRows().map((row) => row.querySelector('a')?.textContent ?? '');
  afterEach(() => vi.useRealTimers());

  it('says per row whether it needs your decision and what its outcome is, in words', async () => {
    const { client } = fakeClient({ listForks: () => ({ ok: true, value: { forks: triageForks() } }) });
    render(ForksView, { props: { client } });
    await screen.findByRole('table');
    const outcome = (title: string) => rowOf(title).querySelector('td.outcome')?.textContent;

    expect(outcome('Recommend one')).toBe('recommend branch-claude');
    expect(outcome('Two passed')).toBe('tie: branch-claude, branch-codex');
    expect(outcome('One kept')).toBe('only branch-claude passed');
    expect(outcome('All failed')).toBe('all failed');
    expect(outcome('Setup broke')).toBe('blocked: setup failed');
    expect(outcome('Done and landed')).toBe('');
    // A blocked branch's chip names its cause, not the reason code.
    expect(within(rowOf('Setup broke')).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['claude blocked: setup failed', 'codex failed: RUNTIME_EXITED_NONZERO']);
    expect(rowOf('Setup broke')).not.toHaveTextContent('start_refused');
    // Every branch failed its verifier: "ready" is not shown as good news.
    expect(within(rowOf('All failed')).getByText('ready')).not.toHaveClass('tone-good');
    expect(within(rowOf('Two passed')).getByText('ready')).toHaveClass('tone-good');

    const deciding = bodyRows().filter((row) => within(row).queryByText('needs your decision') !== null);
    expect(deciding.map((row) => row.querySelector('a')?.textContent)).toEqual(['Two passed', 'One kept', 'All failed', 'Recommend one']);
    const show = screen.getByLabelText('Show');
    expect(within(show).getByRole('option', { name: 'needs your decision (4)' })).toBeInTheDocument();
    await fireEvent.change(show, { target: { value: 'needs-decision' } });
    expect(titles()).toEqual(['Two passed', 'One kept', 'All failed', 'Recommend one']);
    expect(screen.getByRole('status')).toHaveTextContent('4 of 7 forks shown');
  });

  it('finds forks by profile name, failure code and blocked cause', async () => {
    const { client } = fakeClient({ listForks: () => ({ ok: true, value: { forks: triageForks() } }) });
    render(ForksView, { props: { client } });
    await screen.findByRole('table');
    const find = screen.getByLabelText('Find');
    await fireEvent.input(find, { target: { value: 'GEMINI' } });
    expect(titles()).toEqual(['All failed', 'Recommend one']);
    await fireEvent.input(find, { target: { value: 'stopped_by_operator' } });
    expect(titles()).toEqual(['One kept']);
    await fireEvent.input(find, { target: { value: 'SETUP_FAILED' } });
    expect(titles()).toEqual(['Setup broke']);
    await fireEvent.input(find, { target: { value: 'setup failed' } });
    expect(titles()).toEqual(['Setup broke']);
    await fireEvent.input(find, { target: { value: 'verifier_failed' } });
    expect(titles()).toEqual(['All failed', 'Recommend one']);
  });

  it('shows how long a running fork has run, ticking', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    vi.setSystemTime(Date.parse(RUNNING_SINCE) + 125_000);
    const { client } = fakeClient({ listForks: () => ({ ok: true, value: { forks: triageForks() } }) });
    render(ForksView, { props: { client } });
    await screen.findByRole('table');
    const elapsed = () => rowOf('Still going').querySelector('td.outcome')?.textContent;
    expect(elapsed()).toBe('running for 2 min 05 s');
    vi.advanceTimersByTime(3_000);
    await vi.waitFor(() => expect(elapsed()).toBe('running for 2 min 08 s'));
  });

  it('sorts by age either way and by state, what needs you first', async () => {
    const { client } = fakeClient({ listForks: () => ({ ok: true, value: { forks: triageForks() } }) });
    render(ForksView, { props: { client } });
    await screen.findByRole('table');
    expect(titles()).toEqual(['Two passed', 'Done and landed', 'Still going', 'One kept', 'Setup broke', 'All failed', 'Recommend one']);
    const sort = screen.getByLabelText('Sort');
    await fireEvent.change(sort, { target: { value: 'oldest' } });
    expect(titles()).toEqual(['Recommend one', 'All failed', 'Setup broke', 'One kept', 'Still going', 'Done and landed', 'Two passed']);
    await fireEvent.change(sort, { target: { value: 'state' } });
    expect(titles()).toEqual(['Two passed', 'One kept', 'All failed', 'Recommend one', 'Setup broke', 'Still going', 'Done and landed']);
  });

  it('keeps the filter, search and order when the list is left and opened again', async () => {
    const { client } = fakeClient({ listForks: () => ({ ok: true, value: { forks: triageForks() } }) });
    const first = render(ForksView, { props: { client } });
    await screen.findByRole('table');
    await fireEvent.change(screen.getByLabelText('Show'), { target: { value: 'needs-decision' } });
    await fireEvent.input(screen.getByLabelText('Find'), { target: { value: 'claude' } });
    await fireEvent.change(screen.getByLabelText('Sort'), { target: { value: 'oldest' } });
    first.unmount();

    render(ForksView, { props: { client } });
    await screen.findByRole('table');
    expect(screen.getByLabelText('Show')).toHaveValue('needs-decision');
    expect(screen.getByLabelText('Find')).toHaveValue('claude');
    expect(screen.getByLabelText('Sort')).toHaveValue('oldest');
    expect(titles()).toEqual(['Recommend one', 'All failed', 'One kept', 'Two passed']);
  });

  it('cleans several settled forks at once after one confirmation, and says what happened to each', async () => {
    const { client, calls } = fakeClient({
      listForks: () => ({ ok: true, value: { forks: triageForks() } }),
      cleanability: ({ fork_id }) => ({ ok: true, value: fork_id === forkId(1) ? { cleanable: false, reason: 'branches_running', branch_ids: ['branch-codex'] } : { cleanable: true } }),
      cleanFork: ({ fork_id }) =>
        fork_id === forkId(2)
          ? { ok: false, error: { code: 'FORK_LOCKED', message: 'another process holds the fork' } }
          : {
              ok: true,
              value: { fork_id, branches: [{ branch_id: 'branch-claude', worktree_removed: true, branch_deleted: true }, { branch_id: 'branch-codex', worktree_removed: true, branch_deleted: false }] },
            },
    });
    render(ForksView, { props: { client } });
    await screen.findByRole('table');
    // No pick boxes until the operator asks to pick (a thousand rows build none).
    expect(screen.queryAllByRole('checkbox')).toEqual([]);
    const toggle = screen.getByRole('button', { name: 'Pick forks to clean' });
    await fireEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-pressed', 'true');
    // Clean selected loads on first use: a module import, slow on a loaded machine.
    expect(await screen.findByRole('button', { name: 'Clean selected…' }, { timeout: 15_000 })).toBeDisabled();
    // A running fork cannot be picked: its branches are still at work.
    expect(within(rowOf('Still going')).queryByRole('checkbox')).toBeNull();
    for (const title of ['Recommend one', 'All failed', 'Setup broke']) await fireEvent.click(within(rowOf(title)).getByRole('checkbox'));
    expect(screen.getByRole('group', { name: 'Picked forks' })).toHaveTextContent('3 forks picked');

    await fireEvent.click(screen.getByRole('button', { name: 'Clean selected…' }));
    const confirm = screen.getByRole('group', { name: 'Remove the worktrees and git branches of 3 forks?' });
    expect(confirm).toHaveTextContent('3 of them have nothing landed');
    expect(calls.map((c) => c.channel)).toEqual(['listForks']);
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(calls.map((c) => c.channel)).toEqual(['listForks']);

    await fireEvent.click(screen.getByRole('button', { name: 'Clean selected…' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Clean 3 forks' }));
    // Outcomes are listed as each fork is done; this heading says all three are.
    expect(await screen.findByRole('heading', { name: 'Clean selected: 1 of 3 cleaned' })).toBeInTheDocument();
    const results = screen.getByRole('list', { name: 'Clean results' });
    const lines = within(results).getAllByRole('listitem').map((li) => li.textContent);
    expect(lines).toEqual([
      `Recommend one ${forkId(0)}: cleaned: 2 worktrees removed, 1 git branch deleted`,
      `All failed ${forkId(1)}: not now: stop its running branches first (branch-codex)`,
      `Setup broke ${forkId(2)}: refused: FORK_LOCKED: Another Citadel process is changing this fork right now; try again in a moment.`,
    ]);
    // cleanFork is called only where cleanability allows it.
    expect(calls.filter((c) => c.channel === 'cleanFork').map((c) => c.request)).toEqual([{ fork_id: forkId(0) }, { fork_id: forkId(2) }]);
    // Done: the picks and the pick column are gone, the outcomes stay.
    expect(toggle).toHaveAttribute('aria-pressed', 'false');
    expect(screen.queryAllByRole('checkbox')).toEqual([]);
    expect(results).toBeInTheDocument();
  });

  it('picks every listed fork that can be cleaned from the header box', async () => {
    const { client } = fakeClient({ listForks: () => ({ ok: true, value: { forks: triageForks() } }) });
    render(ForksView, { props: { client } });
    await screen.findByRole('table');
    await fireEvent.change(screen.getByLabelText('Show'), { target: { value: 'needs-decision' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Pick forks to clean' }));
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Pick every listed fork that can be cleaned' }));
    const group = await screen.findByRole('group', { name: 'Picked forks' }, { timeout: 15_000 });
    expect(group).toHaveTextContent('4 forks picked');
    expect(bodyRows().filter((row) => row.querySelector<HTMLInputElement>('input[data-pick]')?.checked)).toHaveLength(4);
    await fireEvent.click(screen.getByRole('button', { name: 'Clear picks' }));
    expect(group).toHaveTextContent('No fork picked yet');
    await fireEvent.click(screen.getByRole('button', { name: 'Pick forks to clean' }));
    expect(screen.queryByRole('group', { name: 'Picked forks' })).toBeNull();
  });
});
