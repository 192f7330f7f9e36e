import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { compareBranches } from '../../shared/fork/compare';
import type { ReadinessReport } from '../../shared/runtime/readiness';
import type { SandboxReadiness } from '../../shared/sandbox/sandbox-readiness';
import { modelProof } from '../../shared/fork/model-proof';
import { BranchDetailSchema } from '../../shared/ipc/contract';
import CompareView from '../../renderer/src/views/CompareView.svelte';
import ForkView from '../../renderer/src/views/ForkView.svelte';
import NewForkView from '../../renderer/src/views/NewForkView.svelte';
import ProofView from '../../renderer/src/views/ProofView.svelte';
import SettingsView from '../../renderer/src/views/SettingsView.svelte';
import { fakeClient } from './support/fake-client';
import { digest, evidence, FORK_ID, forkStatus, receipt, readyPreview } from './support/fixtures';

const READY: SandboxReadiness = { backend: 'bubblewrap', ready: true, executable: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0', problem: null, install: null };
const MISSING: SandboxReadiness = {
  backend: 'bubblewrap',
  ready: false,
  executable: null,
  version: null,
  problem: 'bwrap is not on PATH',
  install: 'bubblewrap (apt-get install bubblewrap, dnf install bubblewrap)',
};
const readiness = (sandbox: SandboxReadiness | undefined): ReadinessReport => ({ runtimes: [], local_providers: [], ...(sandbox ? { sandbox } : {}) });

const settings = {
  fork_root: '/home/alice/.citadel',
  issuer_id: 'local-alice',
  signing_key: 'not_created',
  public_key_fingerprint: null,
  public_key_pem: null,
  key_store: 'os-keychain',
  key_store_ready: true,
  key_store_problem: null,
  runtimes: [] as string[],
} as const;

const CONTAINED = { mode: 'contained', backend: 'bubblewrap', backend_version: 'bubblewrap 0.8.0', policy_digest: digest('policy claude') } as const;

function newForkClient() {
  return fakeClient({
    sandboxReadiness: () => ({ ok: true, value: MISSING }),
    profileSets: () => ({ ok: true, value: { sets: [] } }),
    previewFork: () => ({ ok: true, value: readyPreview({ executor_set_digest: digest('set'), profiles: [] }) }),
    startFork: () => ({ ok: false, error: { code: 'SANDBOX_UNAVAILABLE', message: 'bwrap is not on PATH' } }),
  });
}

async function fillAndPreview(): Promise<void> {
  await fireEvent.input(screen.getByLabelText('Repository path'), { target: { value: '/tmp/repo' } });
  await fireEvent.input(screen.getByLabelText('Objective'), { target: { value: 'fix the bug' } });
  await fireEvent.click(screen.getByRole('button', { name: 'Preview digests and argv' }));
  await screen.findByText(/executor set digest/);
}

describe('containment in Mission Control', () => {
  it('New Fork sends auto by default, and shows what is missing for it', async () => {
    const { client, calls } = newForkClient();
    render(NewForkView, { props: { client } });
    expect(await screen.findByTestId('sandbox-readiness')).toHaveTextContent('bwrap is not on PATH');
    expect(screen.getByTestId('sandbox-readiness')).toHaveTextContent('apt-get install bubblewrap');
    await fillAndPreview();
    await fireEvent.click(screen.getByRole('button', { name: 'Start fork' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('SANDBOX_UNAVAILABLE');
    const start = calls.find((c) => c.channel === 'startFork');
    expect(start?.request).toMatchObject({ containment: 'auto' });
  });

  it('New Fork marks runtime-only as weaker and starts with it only after an explicit tick', async () => {
    const { client, calls } = newForkClient();
    render(NewForkView, { props: { client } });
    const weaker = screen.getByRole('radio', { name: /runtime-only/i });
    expect(weaker.closest('label')).toHaveTextContent('weaker');
    await fireEvent.click(weaker);
    await fillAndPreview();
    const startButton = screen.getByRole('button', { name: 'Start fork' });
    expect(startButton).toBeDisabled();
    await fireEvent.click(screen.getByRole('checkbox', { name: /I choose runtime-only containment/ }));
    expect(startButton).toBeEnabled();
    await fireEvent.click(startButton);
    await screen.findByRole('alert');
    expect(calls.filter((c) => c.channel === 'startFork').map((c) => c.request)).toEqual([expect.objectContaining({ containment: 'runtime-only' })]);
    expect(calls.find((c) => c.channel === 'previewFork')?.request).toMatchObject({ containment: 'runtime-only' });
  });

  it('choosing runtime-only again asks for the tick again', async () => {
    const { client } = newForkClient();
    render(NewForkView, { props: { client } });
    await fireEvent.click(screen.getByRole('radio', { name: /runtime-only/i }));
    await fireEvent.click(screen.getByRole('checkbox', { name: /I choose runtime-only containment/ }));
    await fireEvent.click(screen.getByRole('radio', { name: /operating system/i }));
    await fireEvent.click(screen.getByRole('radio', { name: /runtime-only/i }));
    expect(screen.getByRole('checkbox', { name: /I choose runtime-only containment/ })).not.toBeChecked();
  });

  it('Settings reports the backend ready with its version, or not ready with the package to install', async () => {
    const ready = render(SettingsView, { props: { client: fakeClient({ settings: () => ({ ok: true, value: settings }), sandboxReadiness: () => ({ ok: true, value: READY }) }).client } });
    expect(await screen.findByTestId('sandbox-readiness')).toHaveTextContent(/ready.*bubblewrap.*\/usr\/bin\/bwrap.*bubblewrap 0\.8\.0/);
    ready.unmount();
    render(SettingsView, { props: { client: fakeClient({ settings: () => ({ ok: true, value: settings }), sandboxReadiness: () => ({ ok: true, value: MISSING }) }).client } });
    const missing = await screen.findByTestId('sandbox-readiness');
    expect(missing).toHaveTextContent('not ready');
    expect(missing).toHaveTextContent('apt-get install bubblewrap');
  });

  it('compare shows each branch containment: backend, version and policy digest, runtime-only in amber, predating receipts as runtime-only', async () => {
    const comparison = compareBranches([
      evidence('branch-claude', receipt('branch-claude', { containment: CONTAINED })),
      evidence('branch-codex', receipt('branch-codex', { containment: { mode: 'runtime-only' } })),
      evidence('branch-gemini', receipt('branch-gemini')),
      evidence('branch-old', null),
    ]);
    render(CompareView, { props: { client: fakeClient({ compareFork: () => ({ ok: true, value: comparison }) }).client, forkId: FORK_ID } });
    await screen.findByRole('heading', { name: /outcome/i });
    const row = screen.getByRole('rowheader', { name: 'Containment' }).closest('tr');
    if (row === null) throw new Error('row header outside a row');
    const [contained, chosen, predates, unknown] = within(row).getAllByTestId('containment');
    expect(contained).toHaveTextContent(`bubblewrap (bubblewrap 0.8.0), policy ${CONTAINED.policy_digest}`);
    expect(contained).not.toHaveClass('tone-warn');
    expect(chosen).toHaveTextContent('runtime-only (chosen');
    expect(chosen).toHaveClass('tone-warn');
    expect(predates).toHaveTextContent('runtime-only (predates containment)');
    expect(predates).toHaveClass('tone-warn');
    expect(unknown).toHaveTextContent('unknown (no verified receipt)');
    expect(unknown).not.toHaveClass('tone-warn');
  });

  it('the Fork view shows each branch containment from its verified receipt', async () => {
    const detail = (branchId: string) =>
      BranchDetailSchema.parse({
        fork_id: FORK_ID,
        branch_id: branchId,
        runtime: branchId.replace(/^branch-/, ''),
        state: 'passed',
        failure_code: null,
        receipt_verified: true,
        verification_reasons: [],
        model: modelProof({ model: null, local_provider: null }, null),
        telemetry: null,
        verifier: null,
        diff_summary: null,
        diff_text: null,
        duration_ms: null,
        containment: branchId === 'branch-claude' ? CONTAINED : { mode: 'runtime-only' },
      });
    const { client } = fakeClient({
      forkStatus: () => ({ ok: true, value: forkStatus() }),
      proofProjection: () => ({ ok: false, error: { code: 'INTERNAL_ERROR', message: 'not needed here' } }),
      readiness: () => ({ ok: true, value: readiness(READY) }),
      branchDetail: (request) => ({ ok: true, value: detail(request.branch_id) }),
      forkContainment: () => ({ ok: true, value: 'predates' }),
    });
    render(ForkView, { props: { client, forkId: FORK_ID } });
    const forkLevel = await screen.findByTestId('fork-containment');
    await waitFor(() => expect(forkLevel).toHaveTextContent('runtime-only (predates containment)'));
    expect(within(forkLevel).getByText('runtime-only (predates containment)')).toHaveClass('tone-warn');
    const panelOf = async (id: string): Promise<HTMLElement> => {
      const section = (await screen.findByRole('heading', { name: id })).closest('section');
      if (section === null) throw new Error('branch heading outside its panel');
      return section;
    };
    const claude = await within(await panelOf('branch-claude')).findByTestId('containment');
    expect(claude).toHaveTextContent(`bubblewrap (bubblewrap 0.8.0), policy ${CONTAINED.policy_digest}`);
    const codex = await within(await panelOf('branch-codex')).findByTestId('containment');
    expect(codex).toHaveTextContent('runtime-only (chosen');
    expect(codex).toHaveClass('tone-warn');
  });

  it('the proof summary counts contained and runtime-only branches', async () => {
    const projection = {
      fork_id: FORK_ID,
      report_digest: digest('report'),
      branches: 3,
      verified_receipts: 3,
      comparable: 3,
      model_proof: { passed: 0, failed: 0, unknown: 3 },
      outcome: 'tie',
      recommended_branch_id: null,
      containment: { contained: 2, runtime_only: 1 },
    } as const;
    render(ProofView, { props: { client: fakeClient({ proofProjection: () => ({ ok: true, value: projection }) }).client, forkId: FORK_ID } });
    const fact = await screen.findByTestId('proof-containment');
    expect(fact).toHaveTextContent('2 of 3 verified branches ran inside an OS sandbox');
    expect(within(fact).getByText('1 runtime-only')).toHaveClass('tone-warn');
  });
});
