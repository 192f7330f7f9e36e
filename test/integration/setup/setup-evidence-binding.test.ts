/**
 * Issue 13, verify-fork's cross-checks: a receipt's setup record (its steps and containment policy
 * digest) and its copied `.worktreeinclude` files must be exactly what its contract froze. A receipt
 * signed with the fork's own key that says otherwise is refused with a typed reason, and only that
 * branch; the untouched receipts of the same contained fork verify (so the recomputed setup
 * policy digest is the one setup really ran under).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateKeyFromText } from '../../../main/evidence/keys/private-key-text';
import { signEnvelope } from '../../../main/evidence/signing/sign-envelope';
import type { ExecutionReceipt } from '../../../shared/fork/receipts';
import { FIXED_SUM, ForkHarness, WORKFLOW, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const FILE_KEYS = { CITADEL_KEYSTORE: 'file' };

interface Compared {
  branches: { branch_id: string; receipt_verified: boolean; reasons: string[] }[];
}

describe('verify-fork binds the setup record and the copied files to the contract', () => {
  it('a re-signed receipt with another setup digest or another copied file is refused (setup_mismatch, worktree_include_mismatch)', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-setup-binding-'));
    writeFileSync(path.join(h.repo, '.gitignore'), '.env\n');
    writeFileSync(path.join(h.repo, '.worktreeinclude'), '.env\n');
    h.gitIn(h.repo, 'add', '-A');
    h.gitIn(h.repo, 'commit', '-q', '-m', 'worktreeinclude');
    writeFileSync(path.join(h.repo, '.env'), 'LOCAL_SETTING=1\n');
    const setup = [{ id: 'prepare', command: 'node', args: ['--version'], timeout_seconds: 60, network: 'none' }];
    writeFileSync(h.workflowFile, JSON.stringify({ ...WORKFLOW, schema_version: 2, setup }));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });

    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--include-confirmed'], FILE_KEYS);
    expect(run.code, run.stderr).toBe(0);
    const compare = async (): Promise<[string, boolean, string[]][]> => {
      const out = await h.cli(['fork', 'compare', doc.fork_id, '--json'], FILE_KEYS);
      return (JSON.parse(out.stdout) as Compared).branches.map((b) => [b.branch_id, b.receipt_verified, b.reasons]);
    };
    expect(await compare()).toEqual([
      ['branch-claude', true, []],
      ['branch-codex', true, []],
    ]);

    const key = privateKeyFromText(readFileSync(path.join(h.root, 'keys', `${h.issuer}.key`), 'utf8').trim(), { issuerId: h.issuer, store: 'test' });
    const resign = (branchId: string, edit: (receipt: ExecutionReceipt) => ExecutionReceipt): void => {
      const file = h.attemptFile(doc.fork_id, branchId, 'execution-receipt.json');
      const { receipt } = h.readJson<{ receipt: ExecutionReceipt }>(file);
      writeFileSync(file, JSON.stringify(signEnvelope(edit(receipt), key)));
    };
    resign('branch-claude', (r) => {
      if (r.setup?.containment.mode !== 'contained') throw new Error(`expected a contained setup record, got ${JSON.stringify(r.setup)}`);
      return { ...r, setup: { ...r.setup, containment: { ...r.setup.containment, policy_digest: `sha256:${'0'.repeat(64)}` } } };
    });
    resign('branch-codex', (r) => ({ ...r, worktree_include: (r.worktree_include ?? []).map((entry) => ({ ...entry, digest: `sha256:${'1'.repeat(64)}` })) }));
    expect(await compare()).toEqual([
      ['branch-claude', false, ['setup_mismatch']],
      ['branch-codex', false, ['worktree_include_mismatch']],
    ]);

    // A receipt that drops its setup record (as if setup never ran) is refused the same way.
    resign('branch-claude', ({ setup: _dropped, ...rest }) => rest);
    resign('branch-codex', ({ worktree_include: _dropped, ...rest }) => rest);
    expect(await compare()).toEqual([
      ['branch-claude', false, ['setup_mismatch']],
      ['branch-codex', false, ['worktree_include_mismatch']],
    ]);
  });
});
