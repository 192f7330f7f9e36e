import { render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { compareBranches } from '../../shared/fork/compare';
import CompareView from '../../renderer/src/views/CompareView.svelte';
import { fakeClient } from './support/fake-client';
import { evidence, FORK_ID, receipt, telemetry } from './support/fixtures';

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
    expect(calls).toEqual([{ channel: 'compareFork', request: { fork_id: FORK_ID } }]);

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
    // The evidence table decides; it does not mention cost or speed.
    expect(screen.getByRole('table', { name: /evidence/i })).not.toHaveTextContent(/\$0|1\.0 s/);
  });

  it('says plainly when evidence is insufficient, with the reasons', async () => {
    const comparison = compareBranches([evidence('branch-claude', receipt('branch-claude')), evidence('branch-codex', null)]);
    const { client } = fakeClient({ compareFork: () => ({ ok: true, value: comparison }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });

    const outcome = (await screen.findByRole('heading', { name: /outcome: insufficient-evidence/i })).closest('section');
    if (outcome === null) throw new Error('outcome heading outside its section');
    expect(outcome).toHaveTextContent(/insufficient evidence: fewer than two branches are comparable, so nothing is recommended/i);
    expect(outcome).toHaveTextContent('1 of 2 branches are comparable; at least 2 are needed');
    expect(within(rowOf(/^receipt$/i)).getAllByRole('cell')[1]).toHaveTextContent('not verified');
    expect(within(rowOf(/^reasons$/i)).getAllByRole('cell')[1]).toHaveTextContent('receipt_missing');
    // Nothing verified for the codex branch: its telemetry is unknown rather than zero.
    const codexCells = [rowOf(/^cost/i), rowOf(/^duration/i)].map((row) => within(row).getAllByRole('cell')[1]);
    for (const cell of codexCells) expect(cell).toHaveTextContent(/^unknown$/);
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
