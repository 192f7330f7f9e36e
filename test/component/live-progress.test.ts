import { render, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { PastForkEvent } from '../../shared/fork/events';
import LiveProgress from '../../renderer/src/components/LiveProgress.svelte';
import type { TimelineEntry } from '../../renderer/src/lib/timeline.svelte';
import ForkView from '../../renderer/src/views/ForkView.svelte';
import { fakeClient } from './support/fake-client';
import { FORK_ID, forkStatus, runningBranchDetail } from './support/fixtures';

const branches = ['claude', 'codex'].map((runtime) => ({
  branch_id: `branch-${runtime}`,
  profile_id: runtime,
  runtime,
  state: 'running' as const,
  failure_code: null,
  blocked_reason: null,
  blocked_code: null,
  attempt: 1,
}));

const detail = (branchId: string) => runningBranchDetail(branchId);

/** Both branches launched 72 s ago with a 10 min budget, as the orchestrator's rebuilt past says. */
function past(): PastForkEvent[] {
  const started = new Date(Date.now() - 72_000).toISOString();
  return [
    { at: started, event: { type: 'fork_history', fork_id: FORK_ID, state: 'running' } },
    ...branches.map(({ branch_id, runtime }) => ({
      at: started,
      event: { type: 'runtime' as const, fork_id: FORK_ID, branch_id, phase: 'launched' as const, run: { started_at: started, budget_seconds: 600, streams_output: runtime === 'codex' } },
    })),
  ];
}

const panel = async (branchId: string): Promise<HTMLElement> => {
  const section = (await screen.findByRole('heading', { name: branchId })).closest('section');
  if (section === null) throw new Error('branch heading outside its panel');
  return section;
};

describe('live progress of a running branch (issue 14)', () => {
  it('ticks the elapsed time against the budget, shows the live diff and the latest Codex output; Claude Code says its output comes at exit', async () => {
    const { client, emit } = fakeClient({
      forkStatus: () => ({ ok: true, value: forkStatus({ state: 'running', branches }) }),
      forkTimeline: () => ({ ok: true, value: past() }),
      branchDetail: (request) => ({ ok: true, value: detail(request.branch_id) }),
    });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const codex = await panel('branch-codex');
    const elapsed = await within(codex).findByTestId('live-elapsed');
    await waitFor(() => expect(elapsed).toHaveTextContent(/^1 min 1[23] s of 10 min budget$/));
    const first = elapsed.textContent;
    // Ticks here, once a second, with no event.
    await waitFor(() => expect(elapsed.textContent).not.toBe(first), { timeout: 2_500 });
    expect(within(codex).getByTestId('live-diff')).toHaveTextContent('not looked at yet');
    expect(within(codex).getByTestId('live-activity')).toHaveTextContent('none yet');

    emit({ type: 'live_diff', fork_id: FORK_ID, branch_id: 'branch-codex', files_changed: 2, insertions: 10, deletions: 3 });
    emit({ type: 'runtime_activity', fork_id: FORK_ID, branch_id: 'branch-codex', at: new Date().toISOString(), seq: 1, kind: 'command_started', summary: 'running npm test' });
    await waitFor(() => expect(within(codex).getByTestId('live-diff')).toHaveTextContent('2 files · +10 −3'));
    expect(within(codex).getByTestId('live-activity')).toHaveTextContent('running npm test');
    const log = within(codex).getByRole('log');
    expect(within(log).getByText('output: running npm test')).toBeInTheDocument();
    expect(within(log).getByText('worktree 2 files · +10 −3')).toBeInTheDocument();
    // The rebuilt past comes first.
    expect(within(log).getAllByRole('listitem')[0]).toHaveTextContent('runtime launched');
    expect(within(screen.getByRole('log', { name: 'Live events of the fork' })).getByText('fork running')).toBeInTheDocument();

    const claude = await panel('branch-claude');
    expect(within(claude).getByTestId('live-activity')).toHaveTextContent("Claude Code's output arrives when it exits.");
    expect(within(claude).getByTestId('live-elapsed')).toHaveTextContent(/of 10 min budget/);
  });

  it('lists the changed files the live diff names, says how many more there are, and when anything last happened (issue 29)', async () => {
    const { client, emit } = fakeClient({
      forkStatus: () => ({ ok: true, value: forkStatus({ state: 'running', branches }) }),
      forkTimeline: () => ({ ok: true, value: past() }),
      branchDetail: (request) => ({ ok: true, value: detail(request.branch_id) }),
    });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const codex = await panel('branch-codex');
    // The rebuilt past: the launch, 72 s ago.
    await waitFor(() => expect(within(codex).getByTestId('live-last')).toHaveTextContent(/^runtime launched, 1 min 1[23] s ago$/));
    emit({ type: 'live_diff', fork_id: FORK_ID, branch_id: 'branch-codex', files_changed: 3, insertions: 10, deletions: 3, paths: ['src/sum.js', 'test/sum.test.js'] });
    const files = await within(codex).findByRole('list', { name: 'Changed files' });
    expect(within(files).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['src/sum.js', 'test/sum.test.js', 'and 1 more']);
    expect(within(codex).getByTestId('live-diff')).toHaveTextContent('3 files · +10 −3');
    await waitFor(() => expect(within(codex).getByTestId('live-last')).toHaveTextContent(/^worktree 3 files · \+10 −3, [01] s ago$/));
    // A diff relayed from a trail that named no files still counts them.
    emit({ type: 'live_diff', fork_id: FORK_ID, branch_id: 'branch-codex', files_changed: 4, insertions: 11, deletions: 3 });
    await waitFor(() => expect(within(codex).getByTestId('live-diff')).toHaveTextContent(/^4 files · \+11 −3$/));
    expect(within(codex).queryByRole('list', { name: 'Changed files' })).toBeNull();
  });

  it('lists a live diff that names a file twice, or odd names, as given, and goes on to the next diff (issue 29)', async () => {
    const branch = branches[1];
    if (branch === undefined) throw new Error('no codex branch');
    const liveDiff = (id: number, paths: string[]): TimelineEntry => ({
      id,
      at: new Date(),
      text: 'worktree',
      tone: 'neutral',
      event: { type: 'live_diff', fork_id: FORK_ID, branch_id: branch.branch_id, files_changed: paths.length, insertions: 1, deletions: 0, paths },
    });
    // Past the event schema (a trail written before it refused them): two names a UTF-8 decoder made one, a newline and an escape code.
    const odd = ['x\uFFFD', 'x\uFFFD', 'evil\nline\x1b[31m'];
    const { rerender } = render(LiveProgress, { props: { branch, entries: [liveDiff(1, odd)] } });
    const items = () => within(screen.getByRole('list', { name: 'Changed files' })).getAllByRole('listitem').map((item) => item.textContent);
    expect(items()).toEqual(odd);
    await rerender({ branch, entries: [liveDiff(1, odd), liveDiff(2, ['x\\xfe', 'x\\xff'])] });
    expect(items()).toEqual(['x\\xfe', 'x\\xff']);
  });

  it('a fork nobody drives says its worktrees are not watched, instead of "not looked at yet"', async () => {
    const { client } = fakeClient({
      forkStatus: () => ({ ok: true, value: forkStatus({ state: 'running', branches }) }),
      forkTimeline: () => ({ ok: true, value: past() }),
      resumability: () => ({ ok: true, value: { resumable: true, reason: 'branches_unfinished' } }),
      branchDetail: (request) => ({ ok: true, value: detail(request.branch_id) }),
    });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const codex = await panel('branch-codex');
    await waitFor(() => expect(within(codex).getByTestId('live-diff')).toHaveTextContent('not watched: no Citadel process drives this fork'));
    expect(within(codex).getByTestId('live-diff')).not.toHaveTextContent('not looked at yet');
    expect(within(codex).getByTestId('live-activity')).toHaveTextContent(/^not watched$/);
  });

  it('a finished branch shows no live progress, and its timeline is its rebuilt past', async () => {
    const done = branches.map((b) => ({ ...b, state: 'passed' as const }));
    const { client } = fakeClient({
      forkStatus: () => ({ ok: true, value: forkStatus({ state: 'ready', branches: done }) }),
      forkTimeline: () => ({
        ok: true,
        value: [...past(), { at: new Date().toISOString(), event: { type: 'verifier_step', fork_id: FORK_ID, branch_id: 'branch-claude', step: 'git_diff_check', status: 'passed' } }],
      }),
      branchDetail: (request) => ({ ok: true, value: detail(request.branch_id) }),
    });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const claude = await panel('branch-claude');
    expect(await within(claude).findByText('verifier git diff check: passed')).toBeInTheDocument();
    expect(within(claude).queryByTestId('live-elapsed')).toBeNull();
    expect(within(claude).queryByText('No events yet.')).toBeNull();
  });
});
