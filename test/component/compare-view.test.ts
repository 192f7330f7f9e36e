import { render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { compareBranches } from '../../shared/fork/compare';
import { modelProof } from '../../shared/fork/model-proof';
import type { VerifierStep } from '../../shared/fork/receipts';
import { requiredVerifierSteps } from '../../shared/fork/required-evidence';
import { BranchDetailSchema } from '../../shared/ipc/contract';
import CompareView from '../../renderer/src/views/CompareView.svelte';
import { fakeClient } from './support/fake-client';
import { evidence, FORK_ID, forkStatus, receipt, telemetry } from './support/fixtures';

const rowOf = (header: RegExp): HTMLElement => {
  const row = screen.getByRole('rowheader', { name: header }).closest('tr');
  if (row === null) throw new Error('row header outside a row');
  return row;
};

describe('compare view', () => {
  it('labels cost and speed as not deciding and shows missing values as "unknown", never 0', async () => {
    // The faster, cheaper branch failed its verifier; the winner reported neither cost nor duration.
    const comparison = compareBranches([
      evidence('branch-claude', receipt('branch-claude', { duration_ms: null, telemetry: telemetry({ cost_usd: null }) })),
      evidence(
        'branch-codex',
        receipt('branch-codex', {
          duration_ms: 1_000,
          telemetry: telemetry({ cost_usd: 0.01 }),
          status: 'failed',
          failure_code: 'VERIFIER_FAILED',
          verifier: { status: 'failed', steps: [{ id: 'git_diff_check', status: 'failed', exit_code: 2, timed_out: false, duration_ms: 5, output_digest: null }] },
        }),
      ),
    ]);
    const { client, calls } = fakeClient({ compareFork: () => ({ ok: true, value: comparison }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });

    expect(await screen.findByRole('heading', { name: /outcome: recommend/i })).toHaveTextContent('branch-claude');
    expect(calls.filter((c) => c.channel === 'compareFork')).toEqual([{ channel: 'compareFork', request: { fork_id: FORK_ID } }]);

    const table = screen.getByRole('table', { name: /cost and speed/i });
    expect(within(table).getByText('not deciding')).toBeVisible();
    expect(rowOf(/^duration/i)).toHaveTextContent(/not deciding/);
    expect(rowOf(/^cost/i)).toHaveTextContent(/not deciding/);

    const [claudeCost, codexCost] = within(rowOf(/^cost/i)).getAllByRole('cell');
    const [claudeDuration, codexDuration] = within(rowOf(/^duration/i)).getAllByRole('cell');
    expect(claudeCost).toHaveTextContent(/^unknown$/);
    expect(claudeDuration).toHaveTextContent(/^unknown$/);
    expect(codexCost).toHaveTextContent('$0.0100');
    expect(codexDuration).toHaveTextContent('1.0 s');
    // Issue 28: tokens are shown beside cost, from the runtime here (no gateway), never deciding.
    expect(rowOf(/^tokens/i)).toHaveTextContent(/not deciding/);
    expect(within(rowOf(/^tokens/i)).getAllByRole('cell')[0]).toHaveTextContent(/^unknown \/ unknown$/);
    // The evidence table decides; it does not mention cost or speed.
    expect(screen.getByRole('table', { name: /evidence/i })).not.toHaveTextContent(/\$0|1\.0 s/);
  });

  it('offers no Select while a branch still runs: each comparable branch says why not (issue 29)', async () => {
    const comparison = compareBranches([evidence('branch-claude', receipt('branch-claude')), evidence('branch-codex', null)]);
    const running = forkStatus({ state: 'running' });
    const fork = { ...running, branches: running.branches.map((b) => (b.branch_id === 'branch-codex' ? { ...b, state: 'running' as const, failure_code: null } : b)) };
    const { client } = fakeClient({ compareFork: () => ({ ok: true, value: comparison }), forkStatus: () => ({ ok: true, value: fork }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });
    expect(await screen.findByTestId('compare-select-not-now')).toHaveTextContent('Nothing can be selected now: branch-codex is still running; select once every branch has settled.');
    expect(screen.queryByRole('link', { name: /^Select/ })).toBeNull();
    expect(rowOf(/^decide/i)).toHaveTextContent('not now: branch-codex is still running');
  });

  it('says plainly when evidence is insufficient, with the reasons', async () => {
    const comparison = compareBranches([evidence('branch-claude', receipt('branch-claude')), evidence('branch-codex', null)]);
    const { client } = fakeClient({ compareFork: () => ({ ok: true, value: comparison }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });

    const outcome = (await screen.findByRole('heading', { name: /outcome: insufficient evidence/i })).closest('section');
    if (outcome === null) throw new Error('outcome heading outside its section');
    expect(outcome).toHaveTextContent(/insufficient evidence: fewer than two branches are comparable, so nothing is recommended/i);
    expect(outcome).toHaveTextContent('1 of 2 branches are comparable; at least 2 are needed');
    expect(within(rowOf(/^receipt$/i)).getAllByRole('cell')[1]).toHaveTextContent('not verified');
    expect(within(rowOf(/^reasons$/i)).getAllByRole('cell')[1]).toHaveTextContent('receipt_missing');
    // Nothing verified for the codex branch: its telemetry is unknown rather than zero.
    const codexCells = [rowOf(/^cost/i), rowOf(/^duration/i)].map((row) => within(row).getAllByRole('cell')[1]);
    for (const cell of codexCells) expect(cell).toHaveTextContent(/^unknown$/);
  });

  it("shows the branches' diffs side by side and a Select button per comparable branch, leading into the select flow", async () => {
    const comparison = compareBranches([evidence('branch-claude', receipt('branch-claude')), evidence('branch-codex', receipt('branch-codex')), evidence('branch-gemini', null)]);
    const diff = (file: string): string => `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-old\n+new in ${file}\n`;
    const { client, calls } = fakeClient({
      compareFork: () => ({ ok: true, value: comparison }),
      branchDetail: ({ branch_id }) => ({
        ok: true,
        value: BranchDetailSchema.parse({
          fork_id: FORK_ID,
          branch_id,
          runtime: 'claude',
          state: 'passed',
          failure_code: null,
          receipt_verified: branch_id !== 'branch-gemini',
          verification_reasons: [],
          model: modelProof({ model: null, local_provider: null }, null),
          telemetry: null,
          verifier: null,
          diff_summary: null,
          diff_text: branch_id === 'branch-gemini' ? null : diff(`src/${branch_id}.js`),
          duration_ms: null,
          containment: null,
        }),
      }),
    });
    render(CompareView, { props: { client, forkId: FORK_ID } });

    const columns = await screen.findByRole('region', { name: 'Diff of branch-claude' }).then((c) => c.parentElement);
    if (columns === null) throw new Error('diff column outside its grid');
    expect(within(columns).getAllByRole('region').map((r) => r.getAttribute('aria-label'))).toEqual(['Diff of branch-claude', 'Diff of branch-codex', 'Diff of branch-gemini']);
    expect(await within(screen.getByRole('region', { name: 'Diff of branch-claude' })).findByText(/new in src\/branch-claude\.js/)).toBeInTheDocument();
    expect(await within(screen.getByRole('region', { name: 'Diff of branch-codex' })).findByText(/new in src\/branch-codex\.js/)).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Diff of branch-gemini' })).getByText(/no diff to show/)).toBeInTheDocument();
    expect(calls.filter((c) => c.channel === 'branchDetail').map((c) => c.request)).toEqual(comparison.branches.map((b) => ({ fork_id: FORK_ID, branch_id: b.branch_id })));

    // One Select per comparable branch, each into the select flow with that branch chosen.
    const decide = within(rowOf(/^decide$/i)).getAllByRole('cell');
    expect(within(decide[0] as HTMLElement).getByRole('link', { name: 'Select branch-claude' })).toHaveAttribute('href', `#/fork/${FORK_ID}/select?branch=branch-claude`);
    expect(within(decide[1] as HTMLElement).getByRole('link', { name: 'Select branch-codex' })).toHaveAttribute('href', `#/fork/${FORK_ID}/select?branch=branch-codex`);
    expect(within(decide[2] as HTMLElement).queryByRole('link')).toBeNull();
    expect(decide[2]).toHaveTextContent('not comparable');
  });

  it('shows a refused comparison as its typed error', async () => {
    const { client } = fakeClient({ compareFork: () => ({ ok: false, error: { code: 'FORK_NOT_FOUND', message: `no fork ${FORK_ID}` } }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('FORK_NOT_FOUND');
    expect(alert).toHaveTextContent(`no fork ${FORK_ID}`);
  });

  it('treats a reply outside the contract as an error, not as data', async () => {
    const comparison = compareBranches([evidence('branch-claude', receipt('branch-claude')), evidence('branch-codex', receipt('branch-codex'))]);
    const tampered = { ...comparison, outcome: 'winner' };
    const { client } = fakeClient({ compareFork: () => ({ ok: true, value: tampered as unknown as typeof comparison }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('INTERNAL_ERROR');
    expect(alert).toHaveTextContent(/does not match the contract/);
    expect(screen.queryByText(/winner/)).toBeNull();
  });
});

describe('compare view, every branch and honest words', () => {
  const STEP = { id: 'git_diff_check', status: 'failed', exit_code: 1, timed_out: false, duration_ms: 5, output_digest: null } as const;
  const failedVerifier = (id: string) => evidence(id, receipt(id, { status: 'failed', failure_code: 'VERIFIER_FAILED', verifier: { status: 'failed', steps: [STEP] } }));

  it('says every branch failed its verifier, not "tie", and names the comparison’s own outcome beside', async () => {
    const comparison = compareBranches([failedVerifier('branch-claude'), failedVerifier('branch-codex'), failedVerifier('branch-gemini')]);
    expect(comparison.outcome).toBe('tie');
    const { client } = fakeClient({ compareFork: () => ({ ok: true, value: comparison }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });

    const heading = await screen.findByRole('heading', { name: 'Outcome: all branches failed' });
    const outcome = heading.closest('section') as HTMLElement;
    expect(outcome).toHaveTextContent('all 3 branches failed their verifier. Nothing is recommended.');
    expect(outcome).toHaveTextContent("The comparison's own outcome is tie.");
    expect(outcome).toHaveClass('tone-border-bad');
    expect(screen.queryByRole('heading', { name: /outcome: tie/i })).toBeNull();
  });

  it('counts a branch that failed before its verifier apart from one its verifier failed', async () => {
    const stopped = evidence('branch-codex', receipt('branch-codex', { status: 'failed', failure_code: 'STOPPED_BY_OPERATOR', verifier: { status: 'not_run', steps: [{ ...STEP, status: 'not_run' }] } }));
    const comparison = compareBranches([failedVerifier('branch-claude'), stopped]);
    expect(comparison.outcome).toBe('insufficient-evidence');
    const { client } = fakeClient({ compareFork: () => ({ ok: true, value: comparison }), branchDetail: () => ({ ok: false, error: { code: 'BRANCH_NOT_FOUND', message: 'not here' } }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });
    const outcome = (await screen.findByRole('heading', { name: 'Outcome: all branches failed' })).closest('section') as HTMLElement;
    expect(outcome).toHaveTextContent('1 branch failed the verifier and 1 failed before a verifier could judge it.');
    expect(outcome).toHaveTextContent("The comparison's own outcome is insufficient-evidence.");
  });

  it('shows every branch: up to four side by side, more split over tables of even size, none left out', async () => {
    const ids = ['branch-a', 'branch-b', 'branch-c', 'branch-d', 'branch-e'];
    const comparison = compareBranches(ids.map((id) => evidence(id, receipt(id, { diff: { files_changed: 1, insertions: 2, deletions: 0 } }))));
    const { client } = fakeClient({ compareFork: () => ({ ok: true, value: comparison }), branchDetail: () => ({ ok: false, error: { code: 'BRANCH_NOT_FOUND', message: 'not here' } }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });

    await screen.findByRole('heading', { name: /outcome/i });
    const evidenceTables = screen.getAllByRole('table', { name: /^evidence/i });
    expect(evidenceTables.map((t) => t.querySelector('caption')?.textContent)).toEqual(['Evidence (decides the outcome), branches 1–3 of 5', 'Evidence (decides the outcome), branches 4–5 of 5']);
    const columns = evidenceTables.map((t) => within(t).getAllByRole('columnheader').map((th) => th.querySelector('code')?.textContent));
    expect(columns).toEqual([['branch-a', 'branch-b', 'branch-c'], ['branch-d', 'branch-e']]);
    // Each table labels its own rows, and counts read right.
    for (const table of evidenceTables) expect(within(table).getByRole('rowheader', { name: 'Diff' })).toBeInTheDocument();
    expect(within(evidenceTables[0] as HTMLElement).getAllByText('1 file · +2 −0')).toHaveLength(3);
    expect(screen.getAllByRole('table', { name: /cost and speed/i })).toHaveLength(2);
  });

  it('keeps three branches in one table, with no sideways scroll box', async () => {
    const comparison = compareBranches([evidence('branch-claude', receipt('branch-claude')), failedVerifier('branch-codex'), failedVerifier('branch-gemini')]);
    const { client } = fakeClient({ compareFork: () => ({ ok: true, value: comparison }), branchDetail: () => ({ ok: false, error: { code: 'BRANCH_NOT_FOUND', message: 'not here' } }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });
    const table = await screen.findByRole('table', { name: 'Evidence (decides the outcome)' });
    expect(within(table).getAllByRole('columnheader')).toHaveLength(3);
    expect(screen.queryByRole('region', { name: /scrolls sideways/i })).toBeNull();
  });
});

describe('compare view, required evidence (issue 30)', () => {
  it('counts required steps only: "3 of 3 required steps ran" where result_symlinks ran before the three required ones', async () => {
    // Every receipt written since issue 12 runs result_symlinks first; it is not a required step.
    const steps: VerifierStep[] = (['result_symlinks', 'protected_paths', 'git_diff_check', 'workflow_verifier'] as const).map((id) => ({
      id,
      status: 'passed',
      exit_code: 0,
      timed_out: false,
      duration_ms: 1,
      output_digest: null,
    }));
    const required = requiredVerifierSteps({ command: { command: 'npm', args: ['test'] } });
    const comparison = compareBranches(
      ['branch-claude', 'branch-codex'].map((id) => ({ ...evidence(id, receipt(id, { verifier: { status: 'passed', steps } })), required_steps: required })),
    );
    const { client } = fakeClient({ compareFork: () => ({ ok: true, value: comparison }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });

    await screen.findByRole('table', { name: 'Evidence (decides the outcome)' });
    const cells = within(rowOf(/^required evidence/i)).getAllByRole('cell');
    expect(cells.map((cell) => cell.textContent)).toEqual(['3 of 3 required steps ran', '3 of 3 required steps ran']);
  });
});
