/**
 * Issue 13: a receipt's copied `.worktreeinclude` files are what the copy measured it wrote (path and
 * digest, recorded per attempt by the copy), not a restatement of the contract, so verify-fork's
 * worktree_include_mismatch compares evidence with the contract. Runtime-only, an agent can reach
 * the fork's private store: one that rewrites the copy's record is caught by that comparison.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Digest } from '../../../shared/digest';
import { FIXED_SUM, ForkHarness } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const ENV_FILE = 'LOCAL_SETTING=1\n';
const FORGED = { copied: [{ path: '.env', digest: `sha256:${'1'.repeat(64)}` }] };

describe('the copied-file evidence is measured', () => {
  it('the receipt states what the copy wrote; a forged copy record fails worktree_include_mismatch', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-copied-evidence-'));
    writeFileSync(path.join(h.repo, '.gitignore'), '.env\n');
    writeFileSync(path.join(h.repo, '.worktreeinclude'), '.env\n');
    h.gitIn(h.repo, 'add', '-A');
    h.gitIn(h.repo, 'commit', '-q', '-m', 'worktreeinclude');
    writeFileSync(path.join(h.repo, '.env'), ENV_FILE);
    const forged = path.join(h.base, 'forged.json');
    writeFileSync(forged, JSON.stringify(FORGED));
    const codexRecord = path.join(h.root, 'forks', '*', 'branches', 'branch-codex', 'attempt-1', 'worktree-include-copied.json');
    await h.simulate({
      claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] },
      codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }], commands: [['sh', '-c', `for f in ${codexRecord}; do cp '${forged}' "$f"; done`]] },
    });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--containment', 'runtime-only', '--include-confirmed'], { CITADEL_KEYSTORE: 'file' });
    expect(run.code, run.stderr).toBe(0);

    const recordOf = (id: string): unknown => h.readJson(h.attemptFile(doc.fork_id, id, 'worktree-include-copied.json'));
    const receiptOf = (id: string): { worktree_include?: unknown } => h.readJson<{ receipt: { worktree_include?: unknown } }>(h.attemptFile(doc.fork_id, id, 'execution-receipt.json')).receipt;
    // The copy's own record: the digest of the bytes it wrote, which the worktree holds.
    expect(recordOf('branch-claude')).toEqual({ copied: [{ path: '.env', digest: sha256Digest(ENV_FILE) }] });
    expect(sha256Digest(readFileSync(path.join(h.worktree(doc.fork_id, 'branch-claude'), '.env')))).toBe(sha256Digest(ENV_FILE));
    expect(receiptOf('branch-claude').worktree_include).toEqual([{ path: '.env', digest: sha256Digest(ENV_FILE) }]);
    // The receipt states the (forged) record, not the contract's list.
    expect(recordOf('branch-codex')).toEqual(FORGED);
    expect(receiptOf('branch-codex').worktree_include).toEqual(FORGED.copied);

    const compare = await h.cli(['fork', 'compare', doc.fork_id, '--json'], { CITADEL_KEYSTORE: 'file' });
    const branches = (JSON.parse(compare.stdout) as { branches: { branch_id: string; receipt_verified: boolean; reasons: string[] }[] }).branches;
    expect(branches.map((b) => [b.branch_id, b.receipt_verified, b.reasons])).toEqual([
      ['branch-claude', true, []],
      ['branch-codex', false, ['worktree_include_mismatch']],
    ]);
  });
});
