/**
 * A branch whose stored evidence was edited is refused by every consumer: compare, select, land
 * and proof all re-verify from disk and none of them counts it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIXED_SUM, ForkHarness, parseDoc, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

async function readyFork(): Promise<{ h: ForkHarness; forkId: string }> {
  const h = new ForkHarness(tempDir('citadel-refuse-'));
  await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
  const { doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile]);
  expect(doc.state).toBe('ready');
  return { h, forkId: doc.fork_id };
}

/** Flips the stored verifier status of a signed receipt, as an attacker editing files would. */
function tamperReceipt(h: ForkHarness, forkId: string, branchId: string): void {
  const file = h.attemptFile(forkId, branchId, 'execution-receipt.json');
  const envelope = JSON.parse(readFileSync(file, 'utf8')) as { receipt: { verifier: { status: string } }; trusted?: boolean };
  envelope.receipt.verifier.status = 'passed';
  envelope.trusted = true;
  writeFileSync(file, JSON.stringify(envelope));
}

describe('tampered evidence is refused everywhere', () => {
  it('compare and proof do not count it; select refuses it', async () => {
    const { h, forkId } = await readyFork();
    tamperReceipt(h, forkId, 'branch-codex');
    const compareRun = await h.cli(['fork', 'compare', forkId, '--json']);
    expect(compareRun.code, compareRun.stderr).toBe(0);
    const compare = JSON.parse(compareRun.stdout) as { outcome: string; branches: { branch_id: string; comparable: boolean; receipt_verified: boolean; reasons: string[] }[] };
    expect(compare.outcome).toBe('insufficient-evidence');
    expect(compare.branches.find((b) => b.branch_id === 'branch-codex')).toMatchObject({ comparable: false, receipt_verified: false, reasons: ['receipt_malformed'] });
    const proofRun = await h.cli(['fork', 'proof', forkId]);
    expect(proofRun.code, proofRun.stderr).toBe(0);
    const proof = JSON.parse(proofRun.stdout) as { counts: Record<string, unknown> };
    expect(proof.counts).toMatchObject({ branches: 2, verified_receipts: 1, comparable: 1 });
    const select = await h.cli(['fork', 'select', forkId, 'branch-codex', '--reason', 'looks fine', '--json']);
    expect(select.code).toBe(1);
    expect(JSON.parse(select.stdout)).toMatchObject({ error: { code: 'SELECTION_REFUSED' } });
  });

  it('land re-verifies the selected receipt: tampering after selection refuses the landing and leaves the target untouched', async () => {
    const { h, forkId } = await readyFork();
    expect((await h.cli(['fork', 'select', forkId, 'branch-claude', '--reason', 'passed', '--json'])).code).toBe(0);
    const plan = JSON.parse((await h.cli(['fork', 'land', forkId, '--json'])).stdout) as { token: string | null };
    expect(plan.token).toMatch(/^[0-9a-f]{12}$/);
    const head = h.gitIn(h.repo, 'rev-parse', 'HEAD');
    const file = h.attemptFile(forkId, 'branch-claude', 'execution-receipt.json');
    const envelope = JSON.parse(readFileSync(file, 'utf8')) as { receipt: { duration_ms: number } };
    envelope.receipt.duration_ms += 1;
    writeFileSync(file, JSON.stringify(envelope));
    const landed = await h.cli(['fork', 'land', forkId, '--confirm', plan.token ?? '', '--json']);
    expect(landed.code).toBe(1);
    const error = (JSON.parse(landed.stdout) as { error: { code: string; details: { failed: string[] } } }).error;
    expect(error.code).toBe('LANDING_PRECONDITION_FAILED');
    expect(error.details.failed).toContain('receipt_verified');
    expect(h.gitIn(h.repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(h.gitIn(h.repo, 'status', '--porcelain')).toBe('');
    expect(parseDoc(await h.cli(['fork', 'status', forkId, '--json'])).state).toBe('selected');
  });

  it('land refuses a branch that moved after its result was verified', async () => {
    const { h, forkId } = await readyFork();
    await h.cli(['fork', 'select', forkId, 'branch-claude', '--reason', 'passed', '--json']);
    // The delivered branch in the operator's repository is what lands: move it past the verified result.
    const delivered = `citadel/${forkId}/branch-claude`;
    const tree = h.gitIn(h.repo, 'rev-parse', `${delivered}^{tree}`).trim();
    const late = h.gitIn(h.repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit-tree', tree, '-p', delivered, '-m', 'late commit').trim();
    h.gitIn(h.repo, 'update-ref', `refs/heads/${delivered}`, late);
    const plan = JSON.parse((await h.cli(['fork', 'land', forkId, '--json'])).stdout) as { checks: { name: string; ok: boolean; reason: string | null }[]; token: string | null };
    expect(plan.token).toBeNull();
    expect(plan.checks.find((c) => c.name === 'receipt_verified')).toMatchObject({ ok: false, reason: expect.stringContaining('not the verified result') });
  });

  it('a landing refused after the target moved names the check; the happy path makes one merge commit', async () => {
    const { h, forkId } = await readyFork();
    await h.cli(['fork', 'select', forkId, 'branch-claude', '--reason', 'passed', '--json']);
    const first = JSON.parse((await h.cli(['fork', 'land', forkId, '--json'])).stdout) as { token: string };
    writeFileSync(`${h.repo}/NOTES.md`, 'moved\n');
    h.gitIn(h.repo, 'add', 'NOTES.md');
    h.gitIn(h.repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'someone else moved main');
    const refused = await h.cli(['fork', 'land', forkId, '--confirm', first.token, '--json']);
    expect(refused.code).toBe(1);
    expect(JSON.stringify(JSON.parse(refused.stdout))).toMatch(/target_head_confirmed/);
    const second = JSON.parse((await h.cli(['fork', 'land', forkId, '--json'])).stdout) as { token: string };
    expect(second.token).not.toBe(first.token);
    const landed = await h.cli(['fork', 'land', forkId, '--confirm', second.token, '--json']);
    expect(landed.code, landed.stdout).toBe(0);
    const mergeCommit = (JSON.parse(landed.stdout) as { merge_commit: string }).merge_commit;
    expect(h.gitIn(h.repo, 'rev-list', '--parents', '-n', '1', 'HEAD').split(' ')).toHaveLength(3);
    expect(h.gitIn(h.repo, 'rev-parse', 'HEAD')).toBe(mergeCommit);
    expect(readFileSync(`${h.repo}/src/sum.js`, 'utf8')).toBe(FIXED_SUM);
    expect(parseDoc(await h.cli(['fork', 'status', forkId, '--json'])).state).toBe('landed');
  });
});
