import { fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import ProofView from '../../renderer/src/views/ProofView.svelte';
import { fakeClient } from './support/fake-client';
import { digest, FORK_ID } from './support/fixtures';

const REPLAY = { text: '{"kind":"citadel_replay"}\n', digest: digest('replay') };
const projection = {
  fork_id: FORK_ID,
  report_digest: digest('report'),
  branches: 2,
  verified_receipts: 1,
  comparable: 1,
  model_proof: { passed: 0, failed: 0, unknown: 2 },
  outcome: 'insufficient-evidence',
  recommended_branch_id: null,
  containment: { contained: 0, runtime_only: 1 },
} as const;

afterEach(() => vi.unstubAllGlobals());

describe('replay and proof', () => {
  it('exports through the save dialog when the desktop shell offers one', async () => {
    const { client, calls } = fakeClient(
      { proofProjection: () => ({ ok: true, value: projection }), exportReplay: () => ({ ok: true, value: REPLAY }) },
      { saveArtifact: () => ({ ok: true, value: { saved: true } }) },
    );
    render(ProofView, { props: { client, forkId: FORK_ID } });
    await fireEvent.click(screen.getByRole('button', { name: 'Export replay' }));
    expect(await screen.findByText(`Saved ${FORK_ID}.replay.json.`)).toBeInTheDocument();
    expect(calls.find((c) => c.channel === 'saveArtifact')?.request).toEqual({ suggested_name: `${FORK_ID}.replay.json`, text: REPLAY.text });
    expect(screen.getByText(REPLAY.digest)).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /download/i })).toBeNull();
  });

  it('offers a download of exactly the exported text in a browser', async () => {
    const blobs: Blob[] = [];
    vi.stubGlobal('URL', Object.assign(class extends URL {}, { createObjectURL: (blob: Blob) => (blobs.push(blob), 'blob:replay'), revokeObjectURL: vi.fn() }));
    const { client } = fakeClient({ proofProjection: () => ({ ok: true, value: projection }), exportReplay: () => ({ ok: true, value: REPLAY }) });
    render(ProofView, { props: { client, forkId: FORK_ID } });
    await fireEvent.click(screen.getByRole('button', { name: 'Export replay' }));
    const link = await screen.findByRole('link', { name: `Download ${FORK_ID}.replay.json` });
    expect(link).toHaveAttribute('href', 'blob:replay');
    expect(link).toHaveAttribute('download', `${FORK_ID}.replay.json`);
    expect(await blobs[0]?.text()).toBe(REPLAY.text);
  });

  it('shows a refused export as its typed error', async () => {
    const { client } = fakeClient({
      proofProjection: () => ({ ok: true, value: projection }),
      exportProof: () => ({ ok: false, error: { code: 'REPLAY_REDACTION_VIOLATION', message: 'a secret-like value at $.branches[0].profile_id' } }),
    });
    render(ProofView, { props: { client, forkId: FORK_ID } });
    await fireEvent.click(screen.getByRole('button', { name: 'Export proof report' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('REPLAY_REDACTION_VIOLATION');
  });

  it('opens a shared file read-only with the digest check main reported', async () => {
    const { client, calls } = fakeClient({
      openArtifact: () => ({
        ok: true,
        value: { kind: 'citadel_proof_report', digest: digest('opened'), digest_checked: false, document: { kind: 'citadel_proof_report', note: '<img src=x>' } },
      }),
    });
    const { container } = render(ProofView, { props: { client, forkId: null } });
    expect(screen.queryByRole('button', { name: /export/i })).toBeNull();
    await fireEvent.change(screen.getByLabelText(/replay or proof file/i), { target: { files: [new File(['{"x":1}'], 'shared.json')] } });
    expect(await screen.findByText(/does NOT match the report's replay_digest/)).toBeInTheDocument();
    expect(calls).toEqual([{ channel: 'openArtifact', request: { text: '{"x":1}' } }]);
    expect(screen.getByText(digest('opened'))).toBeInTheDocument();
    expect(container.querySelector('pre')).toHaveTextContent('"note": "<img src=x>"');
    expect(container.querySelector('img')).toBeNull();
  });

  it('checks an attestation bundle with a public key and shows what is proven per subject', async () => {
    const commit = 'c'.repeat(40);
    const { client, calls } = fakeClient({
      verifyAttestation: (request) =>
        request.public_key_pem === null
          ? { ok: true, value: { verified: false, key_id: digest('key'), signer: 'unverified', fork_id: FORK_ID, envelopes: [], proof: 'not_given', replay: 'not_given', failure: { code: 'ATTESTATION_SIGNER_UNVERIFIED', message: 'no public key was given', line: null } } }
          : {
              ok: true,
              value: {
                verified: true,
                key_id: digest('key'),
                signer: 'verified',
                fork_id: FORK_ID,
                envelopes: [{ line: 1, predicate_type: 'urn:citadel:attestation:branch-result:v1', subjects: [{ name: `citadel/${FORK_ID}/branch-claude`, digest: { gitCommit: commit } }], facts: ['verifier passed'] }],
                proof: 'not_given',
                replay: 'not_given',
                failure: null,
              },
            },
    });
    render(ProofView, { props: { client, forkId: null } });
    const check = screen.getByRole('button', { name: 'Check attestation' });
    expect(check).toBeDisabled();
    await fireEvent.change(screen.getByLabelText(/Attestation bundle/), { target: { files: [new File(['{"line":1}\n'], 'fork.intoto.jsonl')] } });
    await fireEvent.click(check);
    expect(await screen.findByText('signer unverified')).toBeInTheDocument();
    expect(screen.getByText('No public key was given: what follows is claimed, not proven.')).toBeInTheDocument();

    await fireEvent.change(screen.getByLabelText(/Issuer public key/), { target: { files: [new File(['PEM'], 'issuer.pem')] } });
    await fireEvent.click(check);
    expect(await screen.findByText('verified', { selector: '.badge' })).toBeInTheDocument();
    expect(screen.getByRole('list', { name: 'Proven facts of line 1' })).toHaveTextContent('verifier passed');
    expect(screen.getByRole('list', { name: 'Subjects of line 1' })).toHaveTextContent(commit);
    expect(calls.filter((c) => c.channel === 'verifyAttestation').map((c) => c.request)).toEqual([
      { bundle: '{"line":1}\n', public_key_pem: null },
      { bundle: '{"line":1}\n', public_key_pem: 'PEM' },
    ]);
  });

  it('shows the exact failure of a bundle that does not verify', async () => {
    const { client } = fakeClient({
      verifyAttestation: () => ({ ok: true, value: { verified: false, key_id: digest('key'), signer: 'unverified', fork_id: null, envelopes: [], proof: 'not_given', replay: 'not_given', failure: { code: 'ATTESTATION_SIGNATURE_INVALID', message: 'the signature does not hold', line: 2 } } }),
    });
    render(ProofView, { props: { client, forkId: null } });
    await fireEvent.change(screen.getByLabelText(/Attestation bundle/), { target: { files: [new File(['x'], 'b.intoto.jsonl')] } });
    await fireEvent.click(screen.getByRole('button', { name: 'Check attestation' }));
    expect(await screen.findByText('ATTESTATION_SIGNATURE_INVALID')).toBeInTheDocument();
    expect(screen.getByText(/the signature does not hold \(line 2\)/)).toBeInTheDocument();
  });
});
