/**
 * Issue 14 item 1: `fork status` (list and single, text and --json) tells forks apart by the
 * objective's first line and the repository's name. The title is read from objective.txt only when
 * it is the objective the contract binds by digest, and neither label reaches a replay or proof.
 * Item 2: the Fork page header's facts (forkOverview) and the worktree the desktop app may open.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { branchWorktree, forkOverview } from '../../../main/orchestrator';
import { FIXED_SUM, ForkHarness, parseDoc, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const OBJECTIVE = `  Make sum add its arguments, not subtract them — ${'and keep the tests green '.repeat(6)}\nSecond line: details that are not the title.`;

describe('fork status labels', () => {
  it('carries the title and repository name in the list and per fork; a changed objective shows no title; none of it is published', async () => {
    const h = new ForkHarness(tempDir('citadel-labels-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const start = await h.cli(['fork', 'start', OBJECTIVE, '--repo', h.repo, '--runtimes', 'claude,codex', '--json']);
    const started = parseDoc(start) as ReturnType<typeof parseDoc> & { title: string | null; repo_name: string | null };
    expect(start.code, start.stderr).toBe(0);
    const title = started.title ?? '';
    expect(title.startsWith('Make sum add its arguments, not subtract them — and keep')).toBe(true);
    expect([...title]).toHaveLength(80);
    expect(title.endsWith('…')).toBe(true);
    expect(started.repo_name).toBe(path.basename(h.repo));

    const single = JSON.parse((await h.cli(['fork', 'status', started.fork_id, '--json'])).stdout) as Record<string, unknown>;
    expect(single).toMatchObject({ fork_id: started.fork_id, title, repo_name: 'repo' });
    const list = JSON.parse((await h.cli(['fork', 'status', '--json'])).stdout) as { forks: Record<string, unknown>[] };
    expect(list.forks).toEqual([expect.objectContaining({ fork_id: started.fork_id, title, repo_name: 'repo' })]);
    const human = await h.cli(['fork', 'status']);
    expect(human.stdout).toContain(`${started.fork_id}  ready  2 branches  repo  ${title}`);
    expect((await h.cli(['fork', 'status', started.fork_id])).stdout).toContain(`  title     ${title}\n  repo      repo\n`);

    // Private: neither the title nor the repository path is in what can be shared.
    for (const artifact of ['replay', 'proof']) {
      const out = await h.cli(['fork', artifact, started.fork_id]);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).not.toContain('Make sum add');
      expect(out.stdout).not.toContain(h.repo);
    }

    // objective.txt is not what the contract binds any more: its text is not shown as the fork's title.
    writeFileSync(path.join(h.forkDir(started.fork_id), 'objective.txt'), 'Something the operator never asked for');
    const changed = JSON.parse((await h.cli(['fork', 'status', started.fork_id, '--json'])).stdout) as Record<string, unknown>;
    expect(changed).toMatchObject({ title: null, title_standing: 'unverified', repo_name: 'repo' });
    expect((await h.cli(['fork', 'status'])).stdout).toContain('repo  (objective unverified)');
  });

  it('gives the Fork page header its facts, and resolves a worktree only from ids of the fork', async () => {
    const h = new ForkHarness(tempDir('citadel-overview-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const { doc } = await h.startJson(['--runtimes', 'claude,codex']);
    const ctx = await openOrchestratorContext({ env: h.env() });
    const base = h.gitIn(h.repo, 'rev-parse', 'HEAD');

    const fresh = await forkOverview(ctx, doc.fork_id);
    expect(fresh).toMatchObject({ title: 'Fix the sum function', repo_name: 'repo', repo_path: h.repo, base_revision: base, repo_branch: 'main', selection: null, landing: null });
    expect(fresh.worktrees).toEqual([
      { branch_id: 'branch-claude', path: h.worktree(doc.fork_id, 'branch-claude'), present: true },
      { branch_id: 'branch-codex', path: h.worktree(doc.fork_id, 'branch-codex'), present: true },
    ]);
    await expect(branchWorktree(ctx, doc.fork_id, 'branch-claude')).resolves.toBe(h.worktree(doc.fork_id, 'branch-claude'));
    await expect(branchWorktree(ctx, doc.fork_id, 'branch-gemini')).rejects.toMatchObject({ code: 'BRANCH_NOT_FOUND' });
    // A .git the agent rewrote (it could name a git config that runs commands) is never handed to a terminal.
    const gitFile = path.join(h.worktree(doc.fork_id, 'branch-claude'), '.git');
    const citadelGitFile = readFileSync(gitFile, 'utf8');
    writeFileSync(gitFile, 'gitdir: /tmp/elsewhere/.git\n');
    await expect(branchWorktree(ctx, doc.fork_id, 'branch-claude')).rejects.toMatchObject({ code: 'WORKTREE_UNTRUSTED', details: { reason: 'git_file' } });
    writeFileSync(gitFile, citadelGitFile);

    const select = await h.cli(['fork', 'select', doc.fork_id, 'branch-claude', '--reason', 'its verifier passed', '--actor', 'alice', '--json']);
    expect(select.code, select.stdout).toBe(0);
    await h.landConfirmed(doc.fork_id);
    const landed = await forkOverview(ctx, doc.fork_id);
    expect(landed.selection).toMatchObject({ branch_id: 'branch-claude', actor: 'alice', reason: 'its verifier passed' });
    expect(landed.landing).toEqual(expect.objectContaining({ status: 'landed', branch_id: 'branch-claude', target_branch: 'main', merge_commit: h.gitIn(h.repo, 'rev-parse', 'HEAD'), on_target_branch: true }));

    // The reason's private copy changed: only its digest is known, and the header says so rather than show other words.
    const key = (JSON.parse(select.stdout) as { selection: { idempotency_key: string } }).selection.idempotency_key;
    writeFileSync(path.join(h.forkDir(doc.fork_id), 'selections', `${key}.reason.txt`), 'some other reason');
    expect((await forkOverview(ctx, doc.fork_id)).selection).toMatchObject({ reason: null, reason_digest: expect.stringMatching(/^sha256:/) });
    // The merge commit moved off the target branch: not shown as on it.
    h.gitIn(h.repo, 'reset', '-q', '--hard', base);
    expect((await forkOverview(ctx, doc.fork_id)).landing).toMatchObject({ status: 'landed', on_target_branch: false });

    rmSync(h.worktree(doc.fork_id, 'branch-codex'), { recursive: true, force: true });
    expect((await forkOverview(ctx, doc.fork_id)).worktrees[1]).toMatchObject({ branch_id: 'branch-codex', present: false });
    await expect(branchWorktree(ctx, doc.fork_id, 'branch-codex')).rejects.toMatchObject({ code: 'WORKTREE_MISSING' });
  });
});
