import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { Cleanability } from '../../shared/fork/cleanability';
import type { Resumability } from '../../shared/fork/resumability';
import type { ForkStatus } from '../../shared/fork/fork-record';
import ForkView from '../../renderer/src/views/ForkView.svelte';
import { fakeClient } from './support/fake-client';
import { FORK_ID, forkStatus } from './support/fixtures';

type Branch = ForkStatus['branches'][number];
const claudeBlocked: Branch = { branch_id: 'branch-claude', profile_id: 'claude', runtime: 'claude', state: 'blocked', failure_code: 'RUNTIME_OUTCOME_UNKNOWN', blocked_reason: 'process_lost', blocked_code: null, attempt: 1 };
const codexPassed: Branch = { branch_id: 'branch-codex', profile_id: 'codex', runtime: 'codex', state: 'passed', failure_code: null, blocked_reason: null, blocked_code: null, attempt: 1 };
const blocked = forkStatus({ state: 'blocked', branches: [claudeBlocked, codexPassed] });
const retried = forkStatus({ state: 'running', branches: [{ ...claudeBlocked, state: 'running', failure_code: null, blocked_reason: null, blocked_code: null, attempt: 2 }, codexPassed] });

/** A fork that is `blocked` until a resume or retry answers with its new (running) status. */
function setup(resumability: Resumability = { resumable: false, reason: 'nothing_to_resume' }, cleanability: Cleanability = { cleanable: true }) {
  let current = blocked;
  const moveOn = () => ({ ok: true as const, value: (current = retried) });
  return fakeClient({
    forkStatus: () => ({ ok: true, value: current }),
    resumability: () => ({ ok: true, value: resumability }),
    cleanability: () => ({ ok: true, value: cleanability }),
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

  it('offers no Resume while another process works on the fork, and says so', async () => {
    const { client } = setup({ resumable: false, reason: 'in_progress' });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    expect(await screen.findByText(/A Citadel process is working on this fork now/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Resume' })).toBeNull();
  });
});

describe('fork view: the decision for a blocked branch', () => {
  it('asks for confirmation, with the blocked reason, before it retries; Cancel calls nothing and returns focus', async () => {
    const { client, calls } = setup();
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const claude = await branchPanel('branch-claude');
    expect(within(await branchPanel('branch-codex')).queryByRole('button', { name: /Retry/ })).toBeNull();

    const retry = within(claude).getByRole('button', { name: 'Retry branch-claude' });
    await fireEvent.click(retry);
    const confirm = within(claude).getByRole('group', { name: 'Retry branch-claude?' });
    expect(confirm).toHaveTextContent('process_lost');
    expect(confirm).toHaveTextContent('The runtime process was lost before its result was collected.');
    expect(confirm).toHaveTextContent('attempt 2 starts now from the base revision');
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
    const { client, calls } = setup({ resumable: false, reason: 'in_progress' }, { cleanable: false, reason: 'branches_running', branch_ids: ['branch-claude'] });
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
    expect(codexStop).toHaveAccessibleDescription('Nothing to stop: this branch is passed.');
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
