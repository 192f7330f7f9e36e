/**
 * The repository layout of issue 11: each branch works in Citadel's own repository under the fork
 * root (a git dir beside a per-fork base object store), its result reaches the operator's
 * repository only when Citadel delivers it after collection, and the frozen recheck covers just
 * that branch's repository. Real git repositories, the real CLI, the simulated runtimes.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { branch, FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';
import { baseStore, branchGitDir, objectsAdded, plainGit, plantingArgs, readableObjects, startFork, untilLaunched } from './layout-fixture';

const tempDir = useTempDirs();
const fix = (extra: { path: string; content: string }[] = []) => ({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }, ...extra] });

const receiptOf = (h: ForkHarness, forkId: string, branchId: string): { result_commit: string | null; result_tree: string | null } =>
  h.readJson<{ receipt: { result_commit: string | null; result_tree: string | null } }>(h.attemptFile(forkId, branchId, 'execution-receipt.json')).receipt;

describe('sibling results are unreadable', () => {
  it('a branch repository holds 0 objects of its sibling result, also after the sibling was collected and delivered; a later fork holds none of it', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir());
    await h.simulate({
      claude: fix([{ path: 'notes/claude.txt', content: 'claude only\n' }]),
      codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }, { path: 'notes/codex.txt', content: 'CODEX-SIBLING-SECRET\n' }] },
    });
    const { doc } = await startFork(h, 'claude,codex');
    expect(doc.state).toBe('ready');
    const base = plainGit(h.repo, 'rev-parse', 'HEAD').trim();
    // Both were collected and delivered: the operator's repository has both results on their branches.
    const codexResult = plainGit(h.repo, 'rev-parse', `citadel/${doc.fork_id}/branch-codex`).trim();
    const claudeResult = plainGit(h.repo, 'rev-parse', `citadel/${doc.fork_id}/branch-claude`).trim();
    expect(codexResult).toBe(receiptOf(h, doc.fork_id, 'branch-codex').result_commit);
    const codexOnly = objectsAdded(h.repo, codexResult, base);
    expect(codexOnly.length).toBeGreaterThanOrEqual(3); // commit, trees, the two blobs
    // The control: the operator's object store, which `git worktree` would share, holds them all.
    const operatorObjects = readableObjects(path.join(h.repo, '.git'));
    expect(codexOnly.filter((id) => !operatorObjects.has(id))).toEqual([]);

    const claudeObjects = readableObjects(branchGitDir(h, doc.fork_id, 'branch-claude'));
    expect(claudeObjects.has(claudeResult)).toBe(true);
    expect(codexOnly.filter((id) => claudeObjects.has(id))).toEqual([]);
    // As the agent would look, through its worktree's own `.git` file.
    const agentView = plainGit(h.worktree(doc.fork_id, 'branch-claude'), 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)');
    expect(codexOnly.filter((id) => agentView.includes(id))).toEqual([]);

    // A later fork on the same repository starts from a base store made after both deliveries.
    await h.simulate(fix());
    const later = await startFork(h, 'claude,codex');
    expect(later.doc.state).toBe('ready');
    // Its base store holds the base and its history, none of the earlier fork's results.
    const laterBase = readableObjects(baseStore(h, later.doc.fork_id));
    const earlier = [...codexOnly, ...objectsAdded(h.repo, claudeResult, base)];
    expect(laterBase.has(base)).toBe(true);
    expect(earlier.filter((id) => laterBase.has(id))).toEqual([]);
    expect(readableObjects(branchGitDir(h, later.doc.fork_id, 'branch-claude')).has(codexResult)).toBe(false);
  });
});

describe('forks and the operator share a repository', () => {
  it('two concurrent forks on one repository both reach ready, each judged on its own evidence', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir());
    await h.simulate({ claude: { ...fix(), delay_ms: 1500 }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }], delay_ms: 1500 } });
    const [first, second] = await Promise.all([startFork(h, 'claude,codex'), startFork(h, 'claude,codex')]);
    for (const { doc } of [first, second]) {
      expect(doc.state).toBe('ready');
      expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'passed', failure_code: null });
      expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'failed', failure_code: 'VERIFIER_FAILED' });
    }
    expect(first.doc.fork_id).not.toBe(second.doc.fork_id);
  });

  it('a fork survives the operator committing on main, creating a branch and adding a worktree during the run', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir());
    await h.simulate({ claude: { ...fix(), delay_ms: 4000 }, codex: fix() });
    const started = startFork(h, 'claude,codex');
    const forkId = await untilLaunched(h, 'branch-claude');
    const base = plainGit(h.repo, 'rev-parse', 'HEAD').trim();
    plainGit(h.repo, 'commit', '--allow-empty', '-q', '-m', 'operator keeps working');
    plainGit(h.repo, 'branch', 'operator-topic');
    plainGit(h.repo, 'worktree', 'add', '-q', path.join(h.base, 'operator-worktree'), 'operator-topic');
    // Still running when the operator acted: the fork has not come back yet.
    expect(existsSync(h.attemptFile(forkId, 'branch-claude', 'execution-receipt.json'))).toBe(false);
    const { doc } = await started;
    expect(doc.state).toBe('ready');
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'passed', failure_code: null });
    // The moved target is a landing fact, not the branch's: its result still sits on the base.
    const result = plainGit(h.repo, 'rev-parse', `citadel/${forkId}/branch-claude`).trim();
    expect(plainGit(h.repo, 'rev-parse', `${result}^`).trim()).toBe(base);
  });

  it('a branch that runs git commit through an allowed command fails alone; its sibling is judged on its own evidence', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir());
    await h.simulate({ claude: { ...fix(), outcome: 'git_commit' }, codex: fix() });
    // Without OS containment the commit happens: the recheck of the branch's own repository sees it.
    const { doc } = await startFork(h, 'claude,codex', await plantingArgs(h));
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'WORKTREE_CONTAINMENT_VIOLATION' });
    expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'passed', failure_code: null });
    const { violations } = h.readJson<{ violations: { kind: string; branch_id: string }[] }>(h.attemptFile(doc.fork_id, 'branch-claude', 'containment.json'));
    expect(violations.map((v) => v.kind)).toEqual(['worktree_head_moved', 'branch_moved']);
    expect(new Set(violations.map((v) => v.branch_id))).toEqual(new Set(['branch-claude']));
    expect(h.readJson(h.attemptFile(doc.fork_id, 'branch-codex', 'containment.json'))).toEqual({ violations: [] });
    // The agent's commit never reached the operator's repository: its branch is delivered at the base.
    const base = plainGit(h.repo, 'rev-parse', 'HEAD').trim();
    expect(plainGit(h.repo, 'rev-parse', `citadel/${doc.fork_id}/branch-claude`).trim()).toBe(base);
    expect(plainGit(h.repo, 'log', '--all', '--format=%s')).not.toContain('simulated agent commit');
  });

  it('contained (the default), the same git commit is refused by the read-only git dir: that branch fails alone, its repository unchanged', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir());
    await h.simulate({ claude: { ...fix(), outcome: 'git_commit' }, codex: fix() });
    const { doc } = await startFork(h, 'claude,codex');
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_EXITED_NONZERO' });
    expect(branch(doc, 'branch-codex')).toMatchObject({ state: 'passed', failure_code: null });
    expect(readFileSync(h.attemptFile(doc.fork_id, 'branch-claude', 'stderr.log'), 'utf8')).toMatch(/index\.lock': Read-only file system/);
    expect(h.readJson(h.attemptFile(doc.fork_id, 'branch-claude', 'containment.json'))).toEqual({ violations: [] });
  });
});

describe('delivery and clean', () => {
  it('delivers each result only after collection, journaled, and fork clean removes the branch repositories, the base store and the branches', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir());
    await h.simulate({ claude: { ...fix(), delay_ms: 2000 }, codex: fix() });
    const started = startFork(h, 'claude,codex');
    const forkId = await untilLaunched(h, 'branch-claude');
    // Running: the branch exists in Citadel's repository only.
    expect(plainGit(h.repo, 'branch', '--list', `citadel/${forkId}/*`).trim()).toBe('');
    const { doc } = await started;
    expect(doc.state).toBe('ready');
    const journal = h.readJsonLines(path.join(h.forkDir(forkId), 'journal.jsonl'));
    const claudeEffects = journal.filter((r) => r.key === 'branch-claude#1').map((r) => `${String(r.effect)}:${String(r.phase)}`);
    expect(claudeEffects.slice(-3)).toEqual(['receipt.collect:result', 'result.deliver:intent', 'result.deliver:result']);
    const delivered = journal.find((r) => r.effect === 'result.deliver' && r.phase === 'result' && r.key === 'branch-claude#1');
    expect(delivered).toMatchObject({ outcome: 'done', data: { commit: receiptOf(h, forkId, 'branch-claude').result_commit, outcome: 'delivered' } });
    expect(plainGit(h.repo, 'show', `citadel/${forkId}/branch-claude:src/sum.js`)).toBe(FIXED_SUM);
    // The operator's repository registers no worktree of Citadel's.
    expect(plainGit(h.repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);

    const clean = await h.cli(['fork', 'clean', forkId, '--json']);
    expect(clean.code, clean.stderr).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({
      branches: [
        { branch_id: 'branch-claude', worktree_removed: true, branch_deleted: true },
        { branch_id: 'branch-codex', worktree_removed: true, branch_deleted: true },
      ],
    });
    expect(existsSync(path.join(h.root, 'repositories', forkId))).toBe(false);
    expect(existsSync(h.worktree(forkId, 'branch-claude'))).toBe(false);
    expect(plainGit(h.repo, 'branch', '--list', `citadel/${forkId}/*`).trim()).toBe('');
    expect(readFileSync(h.attemptFile(forkId, 'branch-claude', 'execution-receipt.json'), 'utf8')).toContain('result_commit');
  });
});
