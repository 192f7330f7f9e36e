import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { Cleanability } from '../../shared/fork/cleanability';
import type { Resumability } from '../../shared/fork/resumability';
import type { ForkStatus } from '../../shared/fork/fork-record';
import type { RetryPlan } from '../../shared/fork/retry-plan';
import type { BranchDetail } from '../../shared/ipc/contract';
import ForkView from '../../renderer/src/views/ForkView.svelte';
import { formatTime } from '../../renderer/src/lib/format';
import { fakeClient } from './support/fake-client';
import { FORK_ID, forkStatus, runningBranchDetail } from './support/fixtures';

type Branch = ForkStatus['branches'][number];
const claudeBlocked: Branch = { branch_id: 'branch-claude', profile_id: 'claude', runtime: 'claude', state: 'blocked', failure_code: 'RUNTIME_OUTCOME_UNKNOWN', blocked_reason: 'process_lost', blocked_code: null, attempt: 1 };
const codexPassed: Branch = { branch_id: 'branch-codex', profile_id: 'codex', runtime: 'codex', state: 'passed', failure_code: null, blocked_reason: null, blocked_code: null, attempt: 1 };
const blocked = forkStatus({ state: 'blocked', branches: [claudeBlocked, codexPassed] });
const retried = forkStatus({ state: 'running', branches: [{ ...claudeBlocked, state: 'running', failure_code: null, blocked_reason: null, blocked_code: null, attempt: 2 }, codexPassed] });

/** A branch's detail as the orchestrator answers it: a blocked one carries what Retry would do. */
const detailOf = (branchId: string, state: string, retry?: RetryPlan | null): BranchDetail => ({
  ...runningBranchDetail(branchId),
  state,
  ...(retry === undefined ? {} : { retry }),
});

/** A fork that is `blocked` until a resume or retry answers with its new (running) status. */
function setup(
  resumability: Resumability = { resumable: false, reason: 'nothing_to_resume' },
  cleanability: Cleanability = { cleanable: true },
  retry: RetryPlan | null = { kind: 'next_attempt', attempt: 2, max_attempts: 3 },
) {
  let current = blocked;
  const moveOn = () => ({ ok: true as const, value: (current = retried) });
  return fakeClient({
    forkStatus: () => ({ ok: true, value: current }),
    resumability: () => ({ ok: true, value: resumability }),
    cleanability: () => ({ ok: true, value: cleanability }),
    branchDetail: (request) => {
      const branch = current.branches.find((b) => b.branch_id === request.branch_id);
      return { ok: true, value: detailOf(request.branch_id, branch?.state ?? 'unknown', branch?.state === 'blocked' ? retry : undefined) };
    },
    resumeFork: moveOn,
    resolveBranch: (request) =>
      request.resolution === 'retry'
        ? moveOn()
        : { ok: false, error: { code: 'FORK_STATE_CONFLICT', message: 'branch-claude is failed; only a blocked branch needs a decision' } },
    cleanFork: () => ({
      ok: true,
      value: { fork_id: FORK_ID, branches: [{ branch_id: 'branch-claude', worktree_removed: true, branch_deleted: true }, { branch_id: 'branch-codex', worktree_removed: false, branch_deleted: false }] },
    }),
  });
}

const callsTo = (calls: { channel: string; request: unknown }[], channel: string) => calls.filter((c) => c.channel === channel);

const branchPanel = async (branchId: string): Promise<HTMLElement> => {
  const section = (await screen.findByRole('heading', { name: branchId })).closest('section');
  if (section === null) throw new Error('branch heading outside its panel');
  return section;
};

describe('fork view: resume', () => {
  it('offers Resume only when the orchestrator reports the fork resumable, with its reason', async () => {
    const { client, calls } = setup({ resumable: true, reason: 'branches_unfinished' });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    expect(await screen.findByText(/no Citadel process is driving them/)).toBeInTheDocument();
    await fireEvent.click(screen.getByRole('button', { name: 'Resume' }));
    expect(callsTo(calls, 'resumeFork')).toEqual([{ channel: 'resumeFork', request: { fork_id: FORK_ID } }]);
    // The answer is the fork's new status: the retried branch runs again.
    await waitFor(async () => expect(within(await branchPanel('branch-claude')).getByText('running', { selector: '.badge' })).toBeInTheDocument());
  });

  it('says what a settled blocked fork waits for instead of "nothing to resume"', async () => {
    const { client } = setup();
    render(ForkView, { props: { client, forkId: FORK_ID } });
    expect(await screen.findByText('Nothing to resume: 1 blocked branch waits for your decision (Retry or Mark failed, on the branch below).')).toBeInTheDocument();
    expect(screen.queryByText(/there is nothing to resume/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Resume' })).toBeNull();
  });

  it('offers no Resume while another process drives the fork, and says who since when before anything is typed', async () => {
    const since = '2026-11-29T20:41:00.000Z';
    const { client } = setup({ resumable: false, reason: 'in_progress', driver: { by: 'another_process', pid: 4242, since } });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const driver = await screen.findByTestId('fork-driver');
    await waitFor(() => expect(driver).toHaveTextContent(`Being driven by another process since ${formatTime(since)} (a Citadel process, pid 4242)`));
    expect(driver).toHaveClass('notice');
    expect(screen.queryByRole('button', { name: 'Resume' })).toBeNull();
  });

  it("says when it is this Mission Control that drives the fork, without a warning", async () => {
    const { client } = setup({ resumable: false, reason: 'in_progress', driver: { by: 'this_process' } });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const driver = await screen.findByTestId('fork-driver');
    await waitFor(() => expect(driver).toHaveTextContent('Mission Control is driving this fork: its progress streams here.'));
    expect(driver).not.toHaveClass('notice');
  });

  it('offers Resume at the top of the page, above the branches, when nobody drives the fork', async () => {
    const { client } = setup({ resumable: true, reason: 'branches_unfinished' });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const resume = await screen.findByRole('button', { name: 'Resume' });
    expect(screen.getByTestId('fork-driver')).toHaveTextContent('Nobody drives this fork');
    const branches = screen.getByRole('heading', { level: 2, name: 'Branches' });
    expect(resume.compareDocumentPosition(branches) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });
});

describe('fork view: the decision for a blocked branch', () => {
  it('asks for confirmation, with the blocked reason, before it retries; Cancel calls nothing and returns focus', async () => {
    const { client, calls } = setup();
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const claude = await branchPanel('branch-claude');
    expect(within(await branchPanel('branch-codex')).queryByRole('button', { name: /Retry/ })).toBeNull();

    const retry = within(claude).getByRole('button', { name: 'Retry branch-claude' });
    // Said before it is pressed: what Retry starts.
    await waitFor(() => expect(retry).toBeEnabled());
    expect(retry).toHaveAccessibleDescription('Retry: attempt 2 of 3 starts now.');
    await fireEvent.click(retry);
    const confirm = within(claude).getByRole('group', { name: 'Retry branch-claude?' });
    expect(confirm).toHaveTextContent('process_lost');
    expect(confirm).toHaveTextContent('The runtime process was lost before its result was collected.');
    expect(confirm).toHaveTextContent("Attempt 1's worktree and git branch are discarded (its evidence stays), and attempt 2 of 3 starts now from the base revision");
    await waitFor(() => expect(within(confirm).getByRole('button', { name: 'Cancel' })).toHaveFocus());
    expect(callsTo(calls, 'resolveBranch')).toEqual([]);

    await fireEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(within(claude).queryByRole('group', { name: 'Retry branch-claude?' })).toBeNull();
    await waitFor(() => expect(within(claude).getByRole('button', { name: 'Retry branch-claude' })).toHaveFocus());
    expect(callsTo(calls, 'resolveBranch')).toEqual([]);

    await fireEvent.click(within(claude).getByRole('button', { name: 'Retry branch-claude' }));
    await fireEvent.click(within(claude).getByRole('button', { name: 'Confirm retry' }));
    expect(callsTo(calls, 'resolveBranch')).toEqual([{ channel: 'resolveBranch', request: { fork_id: FORK_ID, branch_id: 'branch-claude', resolution: 'retry' } }]);
    await waitFor(() => expect(within(claude).getByText('running', { selector: '.badge' })).toBeInTheDocument());
  });

  it('marks failed only after confirmation, and shows the orchestrator’s refusal as its typed error', async () => {
    const { client, calls } = setup();
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const claude = await branchPanel('branch-claude');
    await fireEvent.click(within(claude).getByRole('button', { name: 'Mark failed branch-claude' }));
    const confirm = within(claude).getByRole('group', { name: 'Mark branch-claude failed?' });
    expect(confirm).toHaveTextContent('RUNTIME_OUTCOME_UNKNOWN');
    // Escape cancels, like the Cancel button.
    await fireEvent.keyDown(within(confirm).getByRole('button', { name: 'Cancel' }), { key: 'Escape' });
    expect(within(claude).queryByRole('group', { name: 'Mark branch-claude failed?' })).toBeNull();
    expect(callsTo(calls, 'resolveBranch')).toEqual([]);

    await fireEvent.click(within(claude).getByRole('button', { name: 'Mark failed branch-claude' }));
    await fireEvent.click(within(claude).getByRole('button', { name: 'Confirm mark failed' }));
    expect(callsTo(calls, 'resolveBranch')).toEqual([{ channel: 'resolveBranch', request: { fork_id: FORK_ID, branch_id: 'branch-claude', resolution: 'mark-failed' } }]);
    const refusal = (await within(claude).findByRole('heading', { name: 'The decision was refused' })).closest('[role="alert"]');
    expect(refusal).toHaveTextContent('FORK_STATE_CONFLICT');
  });
});

describe('fork view: what Retry will use (issue 29)', () => {
  it('with no attempt left, Retry is disabled and says so, with the contract limit; Mark failed stays', async () => {
    const { client, calls } = setup(undefined, undefined, { kind: 'exhausted', attempt: 1, max_attempts: 1 });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const claude = await branchPanel('branch-claude');
    const retry = within(claude).getByRole('button', { name: 'Retry branch-claude' });
    const reason = 'No attempts left: the contract allows 1 attempt per branch (max_attempts 1), and attempt 1 was the last. Mark it failed, or start a new fork with more attempts.';
    await waitFor(() => expect(retry).toHaveAccessibleDescription(reason));
    expect(retry).toBeDisabled();
    expect(within(claude).getByText(reason)).toBeVisible();
    expect(within(claude).getByRole('button', { name: 'Mark failed branch-claude' })).toBeEnabled();
    await fireEvent.click(retry);
    expect(within(claude).queryByRole('group', { name: 'Retry branch-claude?' })).toBeNull();
    expect(callsTo(calls, 'resolveBranch')).toEqual([]);
  });

  it('a start that was refused: the text and the confirmation both say Retry uses no attempt', async () => {
    const refused: Branch = { ...claudeBlocked, failure_code: null, blocked_reason: 'start_refused', blocked_code: 'SETUP_FAILED' };
    let current = forkStatus({ state: 'blocked', branches: [refused, codexPassed] });
    const { client } = fakeClient({
      forkStatus: () => ({ ok: true, value: current }),
      resumability: () => ({ ok: true, value: { resumable: false, reason: 'nothing_to_resume' } }),
      cleanability: () => ({ ok: true, value: { cleanable: true } }),
      branchDetail: (request) => ({ ok: true, value: detailOf(request.branch_id, request.branch_id === 'branch-claude' ? 'blocked' : 'passed', request.branch_id === 'branch-claude' ? { kind: 'same_attempt', attempt: 1, max_attempts: 1 } : undefined) }),
      resolveBranch: () => ({ ok: true, value: (current = retried) }),
    });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const claude = await branchPanel('branch-claude');
    const retry = within(claude).getByRole('button', { name: 'Retry branch-claude' });
    await waitFor(() => expect(retry).toHaveAccessibleDescription('Retry starts attempt 1 of 1 again: nothing ran, so it uses no attempt.'));
    await fireEvent.click(retry);
    const confirm = within(claude).getByRole('group', { name: 'Retry branch-claude?' });
    expect(confirm).toHaveTextContent('Nothing ran, so Retry uses no attempt: attempt 1 of 1 starts again now');
    expect(confirm).not.toHaveTextContent('attempt 2');
  });

  it('while what Retry would start is read, Retry waits; when it cannot be read, it says so', async () => {
    const { client } = setup(undefined, undefined, null);
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const claude = await branchPanel('branch-claude');
    const retry = within(claude).getByRole('button', { name: 'Retry branch-claude' });
    await waitFor(() => expect(retry).toHaveAccessibleDescription(/^Retry is not possible now: what it would start cannot be read/));
    expect(retry).toBeDisabled();
  });
});

describe('fork view: clean', () => {
  it('cleans only after confirmation that says the evidence stays, then shows what was removed', async () => {
    const { client, calls } = setup();
    render(ForkView, { props: { client, forkId: FORK_ID } });
    await fireEvent.click(await screen.findByRole('button', { name: 'Clean…' }));
    const confirm = screen.getByRole('group', { name: "Remove this fork's worktrees and git branches?" });
    expect(confirm).toHaveTextContent('The evidence stays');
    expect(callsTo(calls, 'cleanFork')).toEqual([]);
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Confirm clean' }));
    expect(callsTo(calls, 'cleanFork')).toEqual([{ channel: 'cleanFork', request: { fork_id: FORK_ID } }]);
    const outcome = await screen.findByRole('list', { name: 'Clean result' });
    expect(outcome).toHaveTextContent('branch-claude: worktree removed, branch deleted');
    expect(outcome).toHaveTextContent('branch-codex: worktree already gone, branch already gone');
  });

  it('shows a refused clean as its typed error', async () => {
    const { client } = fakeClient({
      forkStatus: () => ({ ok: true, value: blocked }),
      cleanability: () => ({ ok: true, value: { cleanable: true } }),
      cleanFork: () => ({ ok: false, error: { code: 'FORK_STATE_CONFLICT', message: 'stop the running branches first: branch-claude' } }),
    });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    await fireEvent.click(await screen.findByRole('button', { name: 'Clean…' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Confirm clean' }));
    const refusal = (await screen.findByRole('heading', { name: 'Clean was refused' })).closest('[role="alert"]');
    expect(refusal).toHaveTextContent('stop the running branches first: branch-claude');
  });
});

describe('fork view: only the actions that apply', () => {
  it('disables Clean while the orchestrator says a branch runs, with its reason as visible text and a tooltip', async () => {
    const { client, calls } = setup({ resumable: false, reason: 'in_progress', driver: { by: 'this_process' } }, { cleanable: false, reason: 'branches_running', branch_ids: ['branch-claude'] });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const clean = await screen.findByRole('button', { name: 'Clean…' });
    const reason = 'Not now: stop the running branches first (branch-claude).';
    await waitFor(() => expect(clean).toBeDisabled());
    expect(clean).toHaveAccessibleDescription(reason);
    expect(clean).toHaveAttribute('title', reason);
    expect(screen.getByText(reason)).toBeVisible();
    expect(callsTo(calls, 'cleanability')).toEqual([{ channel: 'cleanability', request: { fork_id: FORK_ID } }]);
  });

  it('says why Clean is unknown in plain words when the orchestrator cannot tell', async () => {
    const { client } = fakeClient({
      forkStatus: () => ({ ok: true, value: blocked }),
      cleanability: () => ({ ok: false, error: { code: 'FORK_LOCKED', message: 'fork-… is locked by pid 4242' } }),
    });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const clean = await screen.findByRole('button', { name: 'Clean…' });
    await waitFor(() => expect(clean).toHaveAccessibleDescription(/Another Citadel process is changing this fork right now/));
    expect(clean).toBeDisabled();
  });

  it('on a settled fork, Stop is disabled with the reason, for the fork and for each branch', async () => {
    const { client } = setup();
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const stopAll = await screen.findByRole('button', { name: 'Stop every running branch' });
    expect(stopAll).toBeDisabled();
    expect(stopAll).toHaveAccessibleDescription('No branch is running or pending, so there is nothing to stop.');
    const codexStop = within(await branchPanel('branch-codex')).getByRole('button', { name: 'Stop branch-codex' });
    expect(codexStop).toBeDisabled();
    expect(codexStop).toHaveAccessibleDescription('Nothing to stop: this branch has passed.');
  });
});

describe('fork view: why a branch is blocked', () => {
  it('shows the typed error behind a failed collection next to its reason', async () => {
    const collectFailed: Branch = { ...claudeBlocked, blocked_reason: 'collect_failed', blocked_code: 'SIGNING_KEY_MISMATCH' };
    const { client } = fakeClient({
      forkStatus: () => ({ ok: true, value: forkStatus({ state: 'blocked', branches: [collectFailed, codexPassed] }) }),
      resumability: () => ({ ok: true, value: { resumable: false, reason: 'nothing_to_resume' } }),
    });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const panel = await branchPanel('branch-claude');
    await waitFor(() => expect(within(panel).getByTestId('blocked-code')).toHaveTextContent('SIGNING_KEY_MISMATCH'));
  });
});
