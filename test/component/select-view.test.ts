import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { compareBranches } from '../../shared/fork/compare';
import { SelectionRecordSchema, type SelectionRecord } from '../../shared/fork/landing';
import SelectView from '../../renderer/src/views/SelectView.svelte';
import { fakeClient } from './support/fake-client';
import { digest, evidence, FORK_ID, forkStatus, receipt } from './support/fixtures';

const EVIDENCE = "branch-codex's verifier failed (VERIFIER_FAILED); the comparison recommends branch-claude";

// Claude's verifier passed and is recommended; Codex's failed.
const comparison = compareBranches([
  evidence('branch-claude', receipt('branch-claude')),
  evidence(
    'branch-codex',
    receipt('branch-codex', {
      status: 'failed',
      failure_code: 'VERIFIER_FAILED',
      verifier: { status: 'failed', steps: [{ id: 'git_diff_check', status: 'failed', exit_code: 2, timed_out: false, duration_ms: 5, output_digest: null }] },
    }),
  ),
]);

const recorded = (branchId: string, against: SelectionRecord['against_evidence'] = undefined): SelectionRecord =>
  SelectionRecordSchema.parse({
    fork_id: FORK_ID,
    fork_revision: 7,
    branch_id: branchId,
    actor: 'alice',
    reason_digest: digest('reason'),
    idempotency_key: 'sel-0123456789abcdef',
    selected_at: '2026-11-29T20:05:00.000Z',
    ...(against === undefined ? {} : { against_evidence: against }),
  });

function setup() {
  return fakeClient({
    forkStatus: () => ({ ok: true, value: forkStatus() }),
    compareFork: () => ({ ok: true, value: comparison }),
    selectBranch: (request) => ({
      ok: true,
      value: recorded(request.branch_id, request.against_evidence === true ? { acknowledged: true, evidence: { outcome: 'recommend', recommended_branch_id: 'branch-claude', verifier_status: 'failed', status: 'failed', failure_code: 'VERIFIER_FAILED', required_evidence: { required: 1, present: 1 } } } : undefined),
    }),
  });
}

const recordButton = (): HTMLElement => screen.getByRole('button', { name: 'Record selection' });

async function fillReasonAndActor(): Promise<void> {
  await fireEvent.input(screen.getByLabelText('Reason'), { target: { value: 'I prefer its approach' } });
  await fireEvent.input(screen.getByLabelText('Actor'), { target: { value: 'alice' } });
}

describe('select view', () => {
  it('a branch against the evidence says what the evidence says and waits for its id to be typed; the request carries the acknowledgement', async () => {
    const { client, calls } = setup();
    render(SelectView, { props: { client, forkId: FORK_ID, branchId: 'branch-codex' } });

    // Chosen beforehand (Compare's Select button).
    expect(await screen.findByRole('radio', { name: /branch-codex/ })).toBeChecked();
    expect(screen.getByTestId('against-evidence')).toHaveTextContent(EVIDENCE);
    await fillReasonAndActor();
    expect(recordButton()).toBeDisabled();
    const confirm = screen.getByLabelText('Type branch-codex to select it against the evidence');
    await fireEvent.input(confirm, { target: { value: 'branch-cod' } });
    expect(recordButton()).toBeDisabled();
    await fireEvent.input(confirm, { target: { value: 'branch-codex' } });
    expect(recordButton()).toBeEnabled();
    await fireEvent.click(recordButton());

    expect(await screen.findByRole('heading', { name: 'Selected branch-codex' })).toBeInTheDocument();
    expect(screen.getByTestId('against-evidence-warning')).toHaveTextContent(`Selected against the evidence. ${EVIDENCE}.`);
    expect(calls.filter((c) => c.channel === 'selectBranch').map((c) => c.request)).toEqual([
      { fork_id: FORK_ID, branch_id: 'branch-codex', reason: 'I prefer its approach', actor: 'alice', against_evidence: true },
    ]);
  });

  it('the recommended branch needs no acknowledgement, and choosing another branch clears a typed one', async () => {
    const { client, calls } = setup();
    render(SelectView, { props: { client, forkId: FORK_ID } });
    await fireEvent.click(await screen.findByRole('radio', { name: /branch-codex/ }));
    await fillReasonAndActor();
    await fireEvent.input(screen.getByLabelText(/^Type branch-codex/), { target: { value: 'branch-codex' } });
    expect(recordButton()).toBeEnabled();

    await fireEvent.click(screen.getByRole('radio', { name: /branch-claude.*recommended/ }));
    expect(screen.queryByTestId('against-evidence')).toBeNull();
    expect(recordButton()).toBeEnabled();
    await fireEvent.click(screen.getByRole('radio', { name: /branch-codex/ }));
    expect(screen.getByLabelText(/^Type branch-codex/)).toHaveValue('');
    expect(recordButton()).toBeDisabled();

    await fireEvent.click(screen.getByRole('radio', { name: /branch-claude/ }));
    await fireEvent.click(recordButton());
    expect(await screen.findByRole('heading', { name: 'Selected branch-claude' })).toBeInTheDocument();
    expect(screen.queryByTestId('against-evidence-warning')).toBeNull();
    expect(calls.filter((c) => c.channel === 'selectBranch').map((c) => c.request)).toEqual([{ fork_id: FORK_ID, branch_id: 'branch-claude', reason: 'I prefer its approach', actor: 'alice' }]);
  });
});

// Issue 29: Claude's branch passed; Codex's was stopped, so only one branch is comparable (the fork is `failed`).
const claudePassed = { branch_id: 'branch-claude', profile_id: 'claude', runtime: 'claude', state: 'passed', failure_code: null, blocked_reason: null, blocked_code: null, attempt: 1 } as const;
const codexStopped = { branch_id: 'branch-codex', profile_id: 'codex', runtime: 'codex', state: 'failed', failure_code: 'STOPPED_BY_OPERATOR', blocked_reason: null, blocked_code: null, attempt: 1 } as const;
const codexRunning = { ...codexStopped, state: 'running', failure_code: null } as const;
const stoppedComparison = compareBranches([
  evidence('branch-claude', receipt('branch-claude')),
  evidence(
    'branch-codex',
    receipt('branch-codex', { status: 'failed', failure_code: 'STOPPED_BY_OPERATOR', exit: { code: null, signal: 'SIGTERM', timed_out: false, stopped: true }, verifier: { status: 'not_run', steps: [] } }),
  ),
]);
const ALONE = "branch-claude's verifier passed; the comparison recommends no branch (fewer than two branches have a verified, comparable result, so none was compared)";

describe('select view: deciding from a settled fork', () => {
  it('while a branch runs nothing can be selected, said in plain words; once it settles, the view follows', async () => {
    let settled = false;
    const { client, emit } = fakeClient({
      forkStatus: () => ({ ok: true, value: forkStatus({ state: settled ? 'failed' : 'running', branches: [claudePassed, settled ? codexStopped : codexRunning] }) }),
      compareFork: () => ({ ok: true, value: stoppedComparison }),
    });
    render(SelectView, { props: { client, forkId: FORK_ID, branchId: 'branch-claude' } });
    expect(await screen.findByTestId('select-not-now')).toHaveTextContent('Nothing can be selected now: branch-codex is still running; select once every branch has settled.');
    expect(screen.getByRole('radio', { name: /branch-claude/ })).toBeDisabled();
    expect(screen.getByRole('radio', { name: /branch-codex/ })).toBeDisabled();
    await fillReasonAndActor();
    expect(recordButton()).toBeDisabled();

    settled = true;
    emit({ type: 'branch_state', fork_id: FORK_ID, branch_id: 'branch-codex', state: 'failed', failure_code: 'STOPPED_BY_OPERATOR' });
    await waitFor(() => expect(screen.queryByTestId('select-not-now')).toBeNull());
    expect(screen.getByRole('radio', { name: /branch-claude/ })).toBeEnabled();
  });

  it('a fork another process drives says so before anything is typed, and Record waits until it lets go (issue 29)', async () => {
    let held = true;
    const { client, emit } = fakeClient({
      forkStatus: () => ({ ok: true, value: forkStatus() }),
      compareFork: () => ({ ok: true, value: comparison }),
      resumability: () => ({
        ok: true,
        value: held ? { resumable: false, reason: 'in_progress', driver: { by: 'another_process', pid: 4242, since: '2026-11-29T20:00:00.000Z' } } : { resumable: false, reason: 'nothing_to_resume' },
      }),
    });
    render(SelectView, { props: { client, forkId: FORK_ID, branchId: 'branch-claude' } });
    expect(await screen.findByTestId('driven-elsewhere')).toHaveTextContent(/Being driven by another process since .+ \(a Citadel process, pid 4242\)/);
    await fillReasonAndActor();
    expect(recordButton()).toBeDisabled();

    held = false;
    emit({ type: 'fork_state', fork_id: FORK_ID, state: 'ready', revision: 8 });
    await waitFor(() => expect(screen.queryByTestId('driven-elsewhere')).toBeNull());
    expect(recordButton()).toBeEnabled();
  });

  it('one passing and one stopped branch: the stopped one says why not; the passing one needs the acknowledgement, then is sent with it', async () => {
    const { client, calls } = fakeClient({
      forkStatus: () => ({ ok: true, value: forkStatus({ state: 'failed', branches: [claudePassed, codexStopped] }) }),
      compareFork: () => ({ ok: true, value: stoppedComparison }),
      selectBranch: (request) => ({
        ok: true,
        value: recorded(request.branch_id, {
          acknowledged: true,
          evidence: { outcome: 'insufficient-evidence', recommended_branch_id: null, verifier_status: 'passed', status: 'passed', failure_code: null, required_evidence: { required: 1, present: 1 } },
        }),
      }),
    });
    render(SelectView, { props: { client, forkId: FORK_ID } });
    const codex = await screen.findByRole('radio', { name: /branch-codex/ });
    expect(codex).toBeDisabled();
    expect(codex).toHaveAccessibleDescription('branch-codex cannot be selected: it ended STOPPED_BY_OPERATOR, which leaves no result the verifier judged.');
    expect(screen.queryByTestId('select-not-now')).toBeNull();

    await fireEvent.click(screen.getByRole('radio', { name: /branch-claude/ }));
    expect(screen.getByTestId('against-evidence')).toHaveTextContent(ALONE);
    await fillReasonAndActor();
    expect(recordButton()).toBeDisabled();
    await fireEvent.input(screen.getByLabelText('Type branch-claude to select it against the evidence'), { target: { value: 'branch-claude' } });
    expect(recordButton()).toBeEnabled();
    await fireEvent.click(recordButton());

    expect(await screen.findByRole('heading', { name: 'Selected branch-claude' })).toBeInTheDocument();
    expect(screen.getByTestId('against-evidence-warning')).toHaveTextContent(`Selected against the evidence. ${ALONE}.`);
    expect(calls.filter((c) => c.channel === 'selectBranch').map((c) => c.request)).toEqual([
      { fork_id: FORK_ID, branch_id: 'branch-claude', reason: 'I prefer its approach', actor: 'alice', against_evidence: true },
    ]);
  });
});
