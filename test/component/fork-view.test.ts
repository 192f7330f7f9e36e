import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import type { AppReply } from '../../shared/ipc/app-channels';
import { ForkOverviewSchema, type ForkOverview } from '../../shared/fork/fork-overview';
import ForkView from '../../renderer/src/views/ForkView.svelte';
import { fakeClient } from './support/fake-client';
import { BranchDetailSchema, type BranchDetail } from '../../shared/ipc/contract';
import { digest, FORK_ID, forkStatus, noOutputYet, runningBranchDetail } from './support/fixtures';

const running = forkStatus({
  state: 'running',
  branches: [
    { branch_id: 'branch-claude', profile_id: 'claude', runtime: 'claude', state: 'running', failure_code: null, blocked_reason: null, blocked_code: null, attempt: 1 },
    { branch_id: 'branch-codex', profile_id: 'codex', runtime: 'codex', state: 'failed', failure_code: 'RUNTIME_NOT_FOUND', blocked_reason: null, blocked_code: null, attempt: 1 },
  ],
});

// The running branch has no receipt yet (so no telemetry); the failed one reported some tokens and nothing else.
const detail = (branchId: string): BranchDetail =>
  branchId === 'branch-claude' ? BranchDetailSchema.parse({ ...runningBranchDetail(branchId), telemetry: null }) : { ...runningBranchDetail(branchId, { input_tokens: 1200 }), state: 'failed' };

const MERGE = 'c0ffee'.padEnd(40, '1');
const overview = (overrides: Partial<ForkOverview> = {}): ForkOverview =>
  ForkOverviewSchema.parse({
    fork_id: FORK_ID,
    title: 'Make sum add its arguments',
    title_standing: 'verified',
    repo_name: 'payments',
    repo_path: '/home/alice/src/payments',
    base_revision: running.base_revision,
    repo_branch: 'main',
    selection: null,
    landing: null,
    worktrees: [
      { branch_id: 'branch-claude', path: `/home/alice/.citadel/worktrees/${FORK_ID}/branch-claude`, present: true },
      { branch_id: 'branch-codex', path: `/home/alice/.citadel/worktrees/${FORK_ID}/branch-codex`, present: false },
    ],
    ...overrides,
  });

function setup(facts: ForkOverview = overview(), app: Parameters<typeof fakeClient>[1] = {}) {
  return fakeClient({
    forkStatus: () => ({ ok: true, value: running }),
    forkOverview: () => ({ ok: true, value: facts }),
    proofProjection: () => ({
      ok: true,
      value: {
        fork_id: FORK_ID,
        report_digest: digest('report'),
        branches: 2,
        verified_receipts: 0,
        comparable: 0,
        model_proof: { passed: 0, failed: 0, unknown: 2 },
        outcome: 'insufficient-evidence',
        recommended_branch_id: null,
        containment: { contained: 0, runtime_only: 0 },
      },
    }),
    readiness: () => ({
      ok: true,
      value: {
        runtimes: [
          { runtime: 'codex', executable: { name: 'codex', found: false, path: null, via: null, version: null, problem: 'not on PATH' }, credentials: { configured: true, sources: ['OPENAI_API_KEY'] }, credential: { kind: 'env_api_key', label: 'API key from the environment (OPENAI_API_KEY)', expires_at: null, refreshable: false } },
        ],
        local_providers: [],
      },
    }),
    branchDetail: (request) => ({ ok: true, value: detail(request.branch_id) }),
    branchOutput: (request) => ({ ok: true, value: noOutputYet(request.branch_id) }),
    stopBranch: () => ({ ok: true, value: running }),
  }, app);
}

const panel = async (branchId: string): Promise<HTMLElement> => {
  const section = (await screen.findByRole('heading', { name: branchId })).closest('section');
  if (section === null) throw new Error('branch heading outside its panel');
  return section;
};

describe('fork view', () => {
  it('on a settled branch, shows unreported telemetry as "unknown", reported values as they are, and an unverified receipt in red', async () => {
    render(ForkView, { props: { client: setup().client, forkId: FORK_ID } });
    const codex = await panel('branch-codex');
    const facts = await within(codex).findByText('Input tokens');
    const telemetryList = facts.closest('dl');
    if (telemetryList === null) throw new Error('telemetry outside its list');
    expect(within(telemetryList).getByText('1200')).toBeInTheDocument();
    for (const term of ['Duration', 'Cost', 'Output tokens']) {
      expect(within(telemetryList).getByText(term).nextElementSibling).toHaveTextContent(/^unknown$/);
    }
    expect(within(codex).getByText('not verified')).toHaveClass('tone-bad');
    expect(within(codex).getByText('not_collected')).toBeInTheDocument();
  });

  it('on a running branch, says "not collected yet" for what its receipt will hold: no red, no "unknown" (issue 29)', async () => {
    render(ForkView, { props: { client: setup().client, forkId: FORK_ID } });
    const claude = await panel('branch-claude');
    const receipt = await within(claude).findByTestId('receipt-standing');
    expect(receipt).toHaveTextContent('not collected yet the receipt is collected and verified when the run ends');
    expect(claude.querySelectorAll('.tone-bad')).toHaveLength(0);
    expect(within(claude).queryByText('not verified')).toBeNull();
    expect(within(claude).queryByText('not_collected')).toBeNull();
    const telemetryList = within(claude).getByText('Input tokens').closest('dl');
    if (telemetryList === null) throw new Error('telemetry outside its list');
    for (const term of ['Duration', 'Cost', 'Input tokens', 'Output tokens', 'Model identity source']) {
      expect(within(telemetryList).getByText(term).nextElementSibling).toHaveTextContent(/^not collected yet$/);
    }
    expect(claude.querySelector('[data-fact="observed"]')).toHaveTextContent('not collected yet');
    expect(claude.querySelector('[data-fact="status"] .badge')).toHaveTextContent('not collected yet');
    expect(claude.querySelector('[data-fact="status"] .badge')).not.toHaveClass('tone-warn');
    expect(within(claude).queryByText(/^unknown$/)).toBeNull();
  });

  describe('the page for a running fork at a glance (issue 29)', () => {
    const order = (first: Element, then: Element): boolean => (first.compareDocumentPosition(then) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;

    it('puts the branches right under the header, and the contract digests, proof and clean-up below them', async () => {
      render(ForkView, { props: { client: setup().client, forkId: FORK_ID } });
      const branches = await screen.findByRole('heading', { level: 2, name: 'Branches' });
      const claude = await panel('branch-claude');
      expect(order(screen.getByRole('navigation', { name: 'Fork actions' }), branches)).toBe(true);
      expect(order(branches, claude)).toBe(true);
      for (const below of ['Contract', 'Proof', 'Clean up']) expect(order(claude, screen.getByRole('heading', { level: 2, name: below }))).toBe(true);
      expect(order(claude, screen.getByText(running.contract_digest))).toBe(true);
    });

    it('disables Compare, Select and Land while a branch runs: not links, with the reason visible and announced', async () => {
      render(ForkView, { props: { client: setup().client, forkId: FORK_ID } });
      const actions = await screen.findByRole('navigation', { name: 'Fork actions' });
      const reason = 'Compare, Select and Land wait until every branch has settled: a branch is still running.';
      await waitFor(() => expect(screen.getByTestId('fork-actions-wait')).toHaveTextContent(reason));
      expect(screen.getByText(/a branch is still running/)).toBeVisible();
      for (const name of ['Compare', 'Select', 'Land']) {
        const action = within(actions).getByRole('link', { name });
        expect(action).toHaveAttribute('aria-disabled', 'true');
        expect(action).not.toHaveAttribute('href');
        expect(action).toHaveAccessibleDescription(reason);
      }
      expect(within(actions).getByRole('link', { name: 'Replay & proof' })).toHaveAttribute('href');
    });

    it('on a settled fork, offers Compare and Select as links, and Land only with a selection, else says why with a link to Select', async () => {
      const settled = forkStatus({ state: 'ready' });
      const answers = (facts: ForkOverview) =>
        fakeClient({
          forkStatus: () => ({ ok: true, value: settled }),
          forkOverview: () => ({ ok: true, value: facts }),
          branchDetail: (request) => ({ ok: true, value: { ...detail(request.branch_id), state: 'passed' } }),
        }).client;
      const view = render(ForkView, { props: { client: answers(overview()), forkId: FORK_ID } });
      const actions = await screen.findByRole('navigation', { name: 'Fork actions' });
      await waitFor(() => expect(screen.getByTestId('fork-actions-wait')).toHaveTextContent('Land needs a selected branch: no branch is selected yet.'));
      expect(within(actions).getByRole('link', { name: 'Compare' })).toHaveAttribute('href', `#/fork/${FORK_ID}/compare`);
      expect(within(actions).getByRole('link', { name: 'Select' })).toHaveAttribute('href', `#/fork/${FORK_ID}/select`);
      const land = within(actions).getByRole('link', { name: 'Land' });
      expect(land).toHaveAttribute('aria-disabled', 'true');
      expect(land).toHaveAccessibleDescription(/Land needs a selected branch: no branch is selected yet/);
      expect(within(screen.getByTestId('fork-actions-wait')).getByRole('link', { name: 'Select a branch' })).toHaveAttribute('href', `#/fork/${FORK_ID}/select`);
      view.unmount();

      const selection = { branch_id: 'branch-claude', actor: 'alice', selected_at: '2026-11-29T21:00:00.000Z', reason: 'its verifier passed', reason_digest: digest('reason'), against_evidence: null };
      render(ForkView, { props: { client: answers(overview({ selection })), forkId: FORK_ID } });
      const nav = await screen.findByRole('navigation', { name: 'Fork actions' });
      await waitFor(() => expect(within(nav).getByRole('link', { name: 'Land' })).toHaveAttribute('href', `#/fork/${FORK_ID}/land`));
      expect(screen.getByTestId('fork-actions-wait')).toHaveTextContent(/^$/);
    });
  });

  it('offers Select by the orchestrator\'s rule: not while a branch is unknown, and not once the fork landed', async () => {
    const blocked = forkStatus({ state: 'blocked' });
    const unknown = { ...blocked, branches: blocked.branches.map((b) => (b.branch_id === 'branch-codex' ? { ...b, state: 'unknown' as const, failure_code: null } : { ...b, state: 'passed' as const, failure_code: null })) };
    const view = render(ForkView, { props: { client: fakeClient({ forkStatus: () => ({ ok: true, value: unknown }), forkOverview: () => ({ ok: true, value: overview() }) }).client, forkId: FORK_ID } });
    const actions = await screen.findByRole('navigation', { name: 'Fork actions' });
    expect(within(actions).getByRole('link', { name: 'Select' })).toHaveAttribute('aria-disabled', 'true');
    expect(within(actions).getByRole('link', { name: 'Compare' })).toHaveAttribute('href', `#/fork/${FORK_ID}/compare`);
    expect(screen.getByTestId('fork-actions-wait')).toHaveTextContent('Select waits: the outcome of branch-codex is not known yet; select once every branch has settled.');
    view.unmount();
    const landed = forkStatus({ state: 'landed' });
    render(ForkView, { props: { client: fakeClient({ forkStatus: () => ({ ok: true, value: landed }), forkOverview: () => ({ ok: true, value: overview() }) }).client, forkId: FORK_ID } });
    const nav = await screen.findByRole('navigation', { name: 'Fork actions' });
    expect(within(nav).getByRole('link', { name: 'Select' })).toHaveAttribute('aria-disabled', 'true');
    await waitFor(() => expect(screen.getByTestId('fork-actions-wait')).toHaveTextContent('Select waits: the fork has already landed'));
  });

  it('names a ready fork whose every branch failed its verifier as such, and no other (issue 29)', async () => {
    const ready = forkStatus({ state: 'ready' });
    const allFailed = { ...ready, branches: ready.branches.map((b) => ({ ...b, state: 'failed' as const, failure_code: 'VERIFIER_FAILED' as const })) };
    const view = render(ForkView, { props: { client: setup(overview(), {}).client, forkId: FORK_ID } });
    await screen.findByRole('navigation', { name: 'Fork actions' });
    expect(screen.queryByTestId('all-failed')).toBeNull();
    view.unmount();
    const { client } = fakeClient({ forkStatus: () => ({ ok: true, value: allFailed }), forkOverview: () => ({ ok: true, value: overview() }) });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    expect(await screen.findByTestId('all-failed')).toHaveTextContent('every branch failed: nothing passed its verifier');
  });

  it('explains a readiness failure and streams events into the branch timeline', async () => {
    const { client, emit } = setup();
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const codex = await panel('branch-codex');
    expect(codex).toHaveTextContent('RUNTIME_NOT_FOUND');
    expect(await within(codex).findByText(/codex is not available: not on PATH/)).toBeInTheDocument();

    emit({ type: 'setup_step', fork_id: FORK_ID, branch_id: 'branch-claude', step: 'install', status: 'running' });
    emit({ type: 'setup_step', fork_id: FORK_ID, branch_id: 'branch-claude', step: 'install', status: 'passed' });
    emit({ type: 'verifier_step', fork_id: FORK_ID, branch_id: 'branch-claude', step: 'git_diff_check', status: 'passed' });
    emit({ type: 'runtime', fork_id: 'fork-01jq7m3x9r2v5k8d4f6h0n1p2t', branch_id: 'branch-claude', phase: 'lost' });
    const log = within(await panel('branch-claude')).getByRole('log');
    expect(await within(log).findByText('verifier git diff check: passed')).toBeInTheDocument();
    // Setup shows live, step by step, before the runtime starts.
    expect(within(log).getByText('setup install: running')).toBeInTheDocument();
    expect(within(log).getByText('setup install: passed')).toBeInTheDocument();
    expect(within(log).queryByText(/lost/)).toBeNull();
  });

  it('re-reads branch evidence only when that branch changes', async () => {
    const { client, calls, emit } = setup();
    render(ForkView, { props: { client, forkId: FORK_ID } });
    await within(await panel('branch-claude')).findByTestId('receipt-standing');
    const detailCalls = (): number => calls.filter((c) => c.channel === 'branchDetail').length;
    const statusCalls = (): number => calls.filter((c) => c.channel === 'forkStatus').length;
    expect(detailCalls()).toBe(2);

    // The record is re-read after the event, but both branches are as they were.
    emit({ type: 'branch_state', fork_id: FORK_ID, branch_id: 'branch-claude', state: 'running', failure_code: null });
    await waitFor(() => expect(statusCalls()).toBe(2));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(detailCalls()).toBe(2);
  });

  it('stops exactly the branch whose STOP was pressed, only after its confirmation', async () => {
    const { client, calls } = setup();
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const stops = (): unknown[] => calls.filter((c) => c.channel === 'stopBranch');
    const codexStop = within(await panel('branch-codex')).getByRole('button', { name: 'Stop branch-codex' });
    expect(codexStop).toBeDisabled();
    const claude = await panel('branch-claude');
    await fireEvent.click(within(claude).getByRole('button', { name: 'Stop branch-claude' }));
    const confirm = within(claude).getByRole('group', { name: 'Stop branch-claude now?' });
    // The safe default has focus, and cancelling calls nothing.
    expect(within(confirm).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(within(claude).queryByRole('group', { name: 'Stop branch-claude now?' })).toBeNull();
    expect(stops()).toEqual([]);
    await fireEvent.click(within(claude).getByRole('button', { name: 'Stop branch-claude' }));
    await fireEvent.click(within(claude).getByRole('button', { name: 'Confirm STOP' }));
    expect(stops()).toEqual([{ channel: 'stopBranch', request: { fork_id: FORK_ID, branch_id: 'branch-claude' } }]);
  });

  it('stops every running branch only after its confirmation', async () => {
    const { client, calls } = setup();
    render(ForkView, { props: { client, forkId: FORK_ID } });
    await panel('branch-claude');
    await fireEvent.click(screen.getByRole('button', { name: 'Stop every running branch' }));
    expect(calls.filter((c) => c.channel === 'stopBranch')).toEqual([]);
    await fireEvent.click(within(screen.getByRole('group', { name: 'Stop every running branch now?' })).getByRole('button', { name: 'Confirm STOP of every branch' }));
    expect(calls.filter((c) => c.channel === 'stopBranch')).toEqual([{ channel: 'stopBranch', request: { fork_id: FORK_ID, branch_id: null } }]);
  });

  it('misses no event sent between its first status read and its subscription', async () => {
    const passed = forkStatus({ state: 'running', branches: running.branches.map((b) => (b.branch_id === 'branch-claude' ? { ...b, state: 'passed' as const } : b)) });
    let reads = 0;
    const { client, emit } = fakeClient({
      forkStatus: () => {
        reads += 1;
        // The fork moves on right after the first read was served, before any later event.
        if (reads === 1) emit({ type: 'branch_state', fork_id: FORK_ID, branch_id: 'branch-claude', state: 'passed', failure_code: null });
        return { ok: true, value: reads === 1 ? running : passed };
      },
      branchDetail: (request) => ({ ok: true, value: detail(request.branch_id) }),
    });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const claude = await panel('branch-claude');
    await waitFor(() => expect(within(claude).getByRole('button', { name: 'Stop branch-claude' })).toBeDisabled());
    expect(within(claude).getByText('passed', { selector: '.badge' })).toBeInTheDocument();
  });

  it('shows a background drive that failed as an error, and its fork timeline entry', async () => {
    const { client, emit } = setup();
    render(ForkView, { props: { client, forkId: FORK_ID } });
    await panel('branch-claude');
    expect(screen.queryByText('Collecting the branches stopped')).toBeNull();
    emit({ type: 'drive_failed', fork_id: 'fork-01jq7m3x9r2v5k8d4f6h0n1p2t', code: 'FORK_LOCKED', message: 'another fork' });
    emit({ type: 'drive_failed', fork_id: FORK_ID, code: 'SIGNING_KEY_MISMATCH', message: 'the signing key of alice is not the one this fork was created with' });
    const alert = (await screen.findByRole('heading', { name: 'Collecting the branches stopped' })).closest('[role="alert"]');
    if (!(alert instanceof HTMLElement)) throw new Error('the drive failure is not an alert');
    expect(alert).toHaveTextContent('SIGNING_KEY_MISMATCH');
    expect(alert).toHaveTextContent('the signing key of alice is not the one this fork was created with');
    expect(alert).not.toHaveTextContent('another fork');
    expect(within(screen.getByRole('log', { name: 'Live events of the fork' })).getByText('drive stopped · SIGNING_KEY_MISMATCH')).toBeInTheDocument();
  });

  describe('what the fork is, and where its work is', () => {
    it('heads the page with the title, repository, base, selection with its reason and the landing merge commit', async () => {
      const selection = { branch_id: 'branch-claude', actor: 'alice', selected_at: '2026-11-29T21:00:00.000Z', reason: 'its verifier passed', reason_digest: digest('reason'), against_evidence: null };
      const landing = { status: 'landed' as const, branch_id: 'branch-claude', target_branch: 'main', merge_commit: MERGE, landed_at: '2026-11-29T21:05:00.000Z', on_target_branch: true };
      render(ForkView, { props: { client: setup(overview({ selection, landing })).client, forkId: FORK_ID } });
      expect(await screen.findByRole('heading', { level: 2, name: 'Make sum add its arguments' })).toBeInTheDocument();
      expect(screen.getByTestId('fork-repo')).toHaveTextContent('payments /home/alice/src/payments');
      expect(screen.getByTestId('fork-base')).toHaveTextContent(`commit ${running.base_revision.slice(0, 12)}; the repository is on branch main now`);
      expect(screen.getByTestId('fork-selection')).toHaveTextContent('branch-claude selected by alice');
      expect(screen.getByTestId('fork-selection')).toHaveTextContent('Reason: its verifier passed');
      expect(screen.getByTestId('fork-landing')).toHaveTextContent('landed branch-claude into main as merge commit c0ffee111111');
      expect(screen.getByTestId('merge-commit')).toHaveAttribute('title', MERGE);
      expect(screen.getByTestId('fork-landing')).not.toHaveTextContent('not on main now');
      expect(screen.queryByTestId('against-evidence-warning')).toBeNull();
    });

    it('says when only the reason digest is known, the title cannot be shown, or the merge left the branch', async () => {
      const selection = {
        branch_id: 'branch-codex',
        actor: 'bob',
        selected_at: '2026-11-29T21:00:00.000Z',
        reason: null,
        reason_digest: digest('reason'),
        against_evidence: {
          acknowledged: true as const,
          evidence: { outcome: 'recommend' as const, recommended_branch_id: 'branch-claude', verifier_status: 'failed' as const, status: 'failed' as const, failure_code: 'VERIFIER_FAILED' as const, required_evidence: { required: 1, present: 1 } },
        },
      };
      const landing = { status: 'landed' as const, branch_id: 'branch-codex', target_branch: 'main', merge_commit: MERGE, landed_at: '2026-11-29T21:05:00.000Z', on_target_branch: false };
      render(ForkView, { props: { client: setup(overview({ title: null, title_standing: 'unverified', repo_branch: null, selection, landing })).client, forkId: FORK_ID } });
      expect(await screen.findByRole('heading', { level: 2, name: 'Objective unverified' })).toBeInTheDocument();
      expect(screen.getByText(/The objective is not shown/)).toBeInTheDocument();
      expect(screen.getByTestId('fork-selection')).toHaveTextContent("Only the reason's digest is stored here");
      expect(screen.getByTestId('fork-selection')).not.toHaveTextContent('Reason:');
      expect(screen.getByTestId('fork-base')).toHaveTextContent('no branch checked out now');
      expect(screen.getByTestId('fork-landing')).toHaveTextContent('not on main now');
      // Selected against the evidence: the header says what the evidence said, as the land wizard does.
      expect(within(screen.getByTestId('fork-selection')).getByTestId('against-evidence-warning')).toHaveTextContent('Selected against the evidence.');
      expect(within(screen.getByTestId('fork-selection')).getByTestId('against-evidence-warning')).toHaveTextContent(
        "branch-codex's verifier failed (VERIFIER_FAILED); the comparison recommends branch-claude",
      );
    });

    it('shows each worktree path with Copy, and offers no Open under the web host', async () => {
      const writeText = vi.fn(async () => undefined);
      Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
      render(ForkView, { props: { client: setup().client, forkId: FORK_ID } });
      const claude = within(await panel('branch-claude'));
      expect(await claude.findByTestId('worktree-path')).toHaveTextContent(`/home/alice/.citadel/worktrees/${FORK_ID}/branch-claude`);
      expect(claude.queryByRole('button', { name: 'Open folder' })).toBeNull();
      expect(claude.queryByRole('button', { name: 'Open terminal' })).toBeNull();
      await fireEvent.click(claude.getByRole('button', { name: 'Copy path' }));
      expect(writeText).toHaveBeenCalledWith(`/home/alice/.citadel/worktrees/${FORK_ID}/branch-claude`);
      expect(await claude.findByText('Path copied.')).toBeInTheDocument();
      const codex = within(await panel('branch-codex'));
      expect(codex.getByText(/Not on this machine any more/)).toBeInTheDocument();
      expect(codex.queryByRole('button', { name: 'Copy path' })).toBeNull();
    });

    it('in the desktop app, opens a worktree by fork and branch ids only, and explains a refusal', async () => {
      const answers: AppReply<'openWorktree'>[] = [
        { ok: true, value: { opened: true } },
        { ok: false, error: { code: 'WORKTREE_OPEN_FAILED', message: "no terminal could be started (x-terminal-emulator: ENOENT); set TERMINAL to your terminal's command" } },
      ];
      const { client, calls } = setup(overview(), { openWorktree: () => answers.shift() ?? answers[0]! });
      render(ForkView, { props: { client, forkId: FORK_ID } });
      const claude = within(await panel('branch-claude'));
      await fireEvent.click(await claude.findByRole('button', { name: 'Open folder' }));
      expect(await claude.findByText('Opened the folder.')).toBeInTheDocument();
      await fireEvent.click(claude.getByRole('button', { name: 'Open terminal' }));
      expect(await claude.findByRole('heading', { name: 'The worktree could not be opened' })).toBeInTheDocument();
      expect(claude.getByText(/set TERMINAL/)).toBeInTheDocument();
      expect(calls.filter((c) => c.channel === 'openWorktree').map((c) => c.request)).toEqual([
        { fork_id: FORK_ID, branch_id: 'branch-claude', with: 'editor' },
        { fork_id: FORK_ID, branch_id: 'branch-claude', with: 'terminal' },
      ]);
    });
  });
});
