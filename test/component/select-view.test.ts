import { fireEvent, render, screen } from '@testing-library/svelte';
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
