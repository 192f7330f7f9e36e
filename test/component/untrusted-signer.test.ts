import { render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { compareBranches } from '../../shared/fork/compare';
import { modelProof } from '../../shared/fork/model-proof';
import { BranchDetailSchema } from '../../shared/ipc/contract';
import BranchPanel from '../../renderer/src/components/BranchPanel.svelte';
import CompareView from '../../renderer/src/views/CompareView.svelte';
import { fakeClient } from './support/fake-client';
import { evidence, FORK_ID } from './support/fixtures';

/** A branch as verifyFork hands it over when the fork's signer is not a key this machine trusts. */
const untrusted = (branchId: string) => ({ ...evidence(branchId, null), reasons: ['signer_untrusted' as const] });

describe('an untrusted signer is shown as such', () => {
  it('compare marks every branch of an untrusted fork', async () => {
    const comparison = compareBranches([untrusted('branch-claude'), untrusted('branch-codex')]);
    const { client } = fakeClient({ compareFork: () => ({ ok: true, value: comparison }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });
    expect(await screen.findByRole('heading', { name: /outcome: insufficient evidence/i })).toBeVisible();
    expect(screen.getAllByText('untrusted signer')).toHaveLength(2);
  });

  it('the control: a comparison whose branches are unverified for another reason shows no untrusted signer', async () => {
    const comparison = compareBranches([evidence('branch-claude', null), evidence('branch-codex', null)]);
    const { client } = fakeClient({ compareFork: () => ({ ok: true, value: comparison }) });
    render(CompareView, { props: { client, forkId: FORK_ID } });
    expect(await screen.findByRole('heading', { name: /outcome: insufficient evidence/i })).toBeVisible();
    expect(screen.queryByText('untrusted signer')).toBeNull();
  });

  it('the branch panel says the receipt is signed by a key this machine does not trust', async () => {
    const detail = BranchDetailSchema.parse({
      fork_id: FORK_ID,
      branch_id: 'branch-claude',
      runtime: 'claude',
      state: 'passed',
      failure_code: null,
      receipt_verified: false,
      verification_reasons: ['signer_untrusted'],
      model: modelProof({ model: null, local_provider: null }, null),
      telemetry: null,
      verifier: null,
      diff_summary: null,
      diff_text: null,
      duration_ms: null,
      containment: null,
    });
    const { client } = fakeClient({ branchDetail: () => ({ ok: true, value: detail }) });
    const branch = { branch_id: 'branch-claude', profile_id: 'claude', runtime: 'claude', state: 'passed', failure_code: null, blocked_reason: null, blocked_code: null, attempt: 1 } as const;
    render(BranchPanel, { props: { client, forkId: FORK_ID, branch, entries: [], readiness: null, stopping: false, onstop: () => undefined, onresolved: () => undefined } });
    expect(await screen.findByText('untrusted signer')).toBeVisible();
    expect(screen.getByText(/signed by a key this machine does not trust/)).toBeVisible();
  });
});
