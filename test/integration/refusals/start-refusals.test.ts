/**
 * A start refused once the fork record exists leaves the fork in a state `clean` and
 * `resolve --mark-failed` can end (issue 12, clean refusals); a branch named `citadel` in the
 * operator's repository, which leaves no room for `citadel/<fork>/<branch>`, is refused before any
 * state exists. Real repositories, the real CLI as a child process. Runtime-only: what is refused
 * here does not depend on the sandbox.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { branchDetail } from '../../../main/orchestrator';
import { branch, FIXED_SUM, ForkHarness, parseDoc, type ForkStatusDoc } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const RUNTIME_ONLY = ['--runtimes', 'claude,codex', '--containment', 'runtime-only'];
const BRANCHES = ['branch-claude', 'branch-codex'];

async function harness(): Promise<ForkHarness> {
  const h = new ForkHarness(tempDir('citadel-refusal-'));
  await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
  return h;
}

const entries = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir) : []);

async function json(h: ForkHarness, args: readonly string[]): Promise<{ code: number | null; doc: ForkStatusDoc }> {
  const run = await h.cli([...args, '--json']);
  return { code: run.code, doc: parseDoc(run) };
}

describe('a branch named citadel in the operator repository', () => {
  it('refuses the start before any fork state, naming the conflicting ref; once renamed the same start runs', async () => {
    const h = await harness();
    h.gitIn(h.repo, 'branch', 'citadel');
    const refused = await h.startJson(RUNTIME_ONLY);
    expect(refused.run.code).toBe(1);
    expect(refused.doc.error).toMatchObject({ code: 'BRANCH_NAMESPACE_CONFLICT', details: { ref: 'refs/heads/citadel' } });
    expect(refused.doc.error?.message).toContain('refs/heads/citadel');
    for (const dir of ['forks', 'worktrees', 'repositories']) expect(entries(path.join(h.root, dir)), dir).toEqual([]);
    expect(h.gitIn(h.repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).toBe('refs/heads/citadel\nrefs/heads/main');

    h.gitIn(h.repo, 'branch', '-m', 'citadel', 'citadel-old');
    const started = await h.startJson(RUNTIME_ONLY);
    expect(started.run.code, started.run.stderr).toBe(0);
    expect(started.doc.state).toBe('ready');
    // Other forks' result branches under citadel/ are no conflict.
    const second = await h.startJson(RUNTIME_ONLY);
    expect(second.doc.state).toBe('ready');
  });

  it('created during the run, blocks each branch at delivery with that code; resume settles nothing twice, mark-failed and clean end the fork', async () => {
    const h = new ForkHarness(tempDir('citadel-refusal-'));
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }], delay_ms: 1500 });
    const { run, doc } = await h.startJson([...RUNTIME_ONLY, '--detach']);
    expect(run.code, run.stderr).toBe(0);
    h.gitIn(h.repo, 'branch', 'citadel');
    const resumed = await json(h, ['fork', 'resume', doc.fork_id]);
    expect(resumed.code).toBe(0);
    expect(resumed.doc.state).toBe('blocked');
    for (const id of BRANCHES) {
      expect(branch(resumed.doc, id)).toMatchObject({ state: 'blocked', blocked_reason: 'collect_failed', blocked_code: 'BRANCH_NAMESPACE_CONFLICT' });
    }
    // The receipts were written before the delivery was refused: evidence is kept.
    for (const id of BRANCHES) expect(existsSync(h.attemptFile(doc.fork_id, id, 'execution-receipt.json')), id).toBe(true);
    expect((await json(h, ['fork', 'resume', doc.fork_id])).doc.state).toBe('blocked');

    const cleaned = await h.cli(['fork', 'clean', doc.fork_id, '--json']);
    expect(cleaned.code, cleaned.stdout).toBe(0);
    expect(entries(path.join(h.root, 'repositories'))).toEqual([]);
    for (const id of BRANCHES) expect((await json(h, ['fork', 'resolve', doc.fork_id, id, '--mark-failed'])).code).toBe(0);
    const ended = await json(h, ['fork', 'status', doc.fork_id]);
    expect(ended.doc.state).toBe('failed');
    expect(h.gitIn(h.repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).toBe('refs/heads/citadel\nrefs/heads/main');
  });
});

describe('a start refused after the fork record exists', () => {
  // A symlink where Citadel generates a folder is refused (decisions D2): for `repositories` the
  // fork's base store cannot be made (every branch), for `worktrees` no branch repository can.
  it.each(['repositories', 'worktrees'])('(a symlinked %s folder) blocks every branch as start_refused, nothing ran, and clean then mark-failed end it', async (folder) => {
    const h = await harness();
    mkdirSync(h.root, { recursive: true });
    mkdirSync(path.join(h.base, 'elsewhere'));
    symlinkSync(path.join(h.base, 'elsewhere'), path.join(h.root, folder));
    const { run, doc } = await h.startJson(RUNTIME_ONLY);
    expect(run.code, run.stderr).toBe(0);
    expect(doc.state).toBe('blocked');
    for (const id of BRANCHES) {
      expect(branch(doc, id)).toMatchObject({ state: 'blocked', blocked_reason: 'start_refused', blocked_code: 'PATH_ESCAPE', failure_code: null, attempt: 1 });
      expect(existsSync(h.attemptFile(doc.fork_id, id, 'run.json')), `${id} never launched`).toBe(false);
    }
    expect(entries(path.join(h.base, 'elsewhere'))).toEqual([]);
    const journal = h.readJsonLines(path.join(h.forkDir(doc.fork_id), 'journal.jsonl'));
    expect(journal.filter((r) => r.effect === 'runtime.launch')).toEqual([]);

    // Nothing for resume to do; neither refused.
    const resumed = await json(h, ['fork', 'resume', doc.fork_id]);
    expect(resumed.code).toBe(0);
    expect(resumed.doc.state).toBe('blocked');
    const cleaned = await h.cli(['fork', 'clean', doc.fork_id, '--json']);
    expect(cleaned.code, cleaned.stdout).toBe(0);
    for (const id of BRANCHES) {
      const resolved = await json(h, ['fork', 'resolve', doc.fork_id, id, '--mark-failed']);
      expect(resolved.code).toBe(0);
      expect(branch(resolved.doc, id)).toMatchObject({ state: 'failed', blocked_reason: null });
    }
    expect((await json(h, ['fork', 'status', doc.fork_id])).doc.state).toBe('failed');
  });

  it('with its sandbox gone since creation (contained), stays pending and resume refuses; resolve --mark-failed then clean end it', async () => {
    const h = await harness();
    // The first launch is spawned, then the CLI dies: the second branch was never launched.
    const crashed = await h.cli(['fork', 'start', 'Fix the sum function', '--repo', h.repo, '--runtimes', 'claude,codex', '--json'], { CITADEL_CRASH_AT: 'runtime.launch:after-spawn' });
    expect(crashed.code, 'killed at the crash point').toBeNull();
    const [forkId = ''] = entries(path.join(h.root, 'forks'));
    const tools = path.join(h.base, 'tools');
    mkdirSync(tools);
    for (const tool of ['git', 'node']) symlinkSync(execFileSync('which', [tool], { encoding: 'utf8' }).trim(), path.join(tools, tool));
    const resumed = await h.cli(['fork', 'resume', forkId, '--json'], { PATH: `${h.bin}${path.delimiter}${tools}` });
    expect(resumed.code).toBe(1);
    expect(parseDoc(resumed).error).toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
    const status = (await json(h, ['fork', 'status', forkId])).doc;
    expect(branch(status, 'branch-claude')).toMatchObject({ state: 'blocked', blocked_reason: 'launch_in_doubt' });
    expect(branch(status, 'branch-codex')).toMatchObject({ state: 'pending' });
    expect(existsSync(h.attemptFile(forkId, 'branch-codex', 'run.json'))).toBe(false);

    // clean would remove what resume launches into; the never-launched branch is marked failed first.
    expect(JSON.parse((await h.cli(['fork', 'clean', forkId, '--json'])).stdout)).toMatchObject({ error: { code: 'FORK_STATE_CONFLICT' } });
    expect(JSON.parse((await h.cli(['fork', 'resolve', forkId, 'branch-codex', '--retry', '--json'])).stdout)).toMatchObject({ error: { code: 'FORK_STATE_CONFLICT' } });
    for (const id of BRANCHES) {
      const resolved = await json(h, ['fork', 'resolve', forkId, id, '--mark-failed']);
      expect(resolved.code).toBe(0);
      expect(branch(resolved.doc, id)).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_OUTCOME_UNKNOWN' });
    }
    const cleaned = await h.cli(['fork', 'clean', forkId, '--json']);
    expect(cleaned.code, cleaned.stdout).toBe(0);
    expect((await json(h, ['fork', 'status', forkId])).doc.state).toBe('failed');
  });

  it('once fixed, resolve --retry starts the same attempt (none was used) and the fork becomes ready', async () => {
    const h = await harness();
    mkdirSync(h.root, { recursive: true });
    mkdirSync(path.join(h.base, 'elsewhere'));
    symlinkSync(path.join(h.base, 'elsewhere'), path.join(h.root, 'worktrees'));
    const { doc } = await h.startJson([...RUNTIME_ONLY, '--max-attempts', '1']);
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'blocked', blocked_reason: 'start_refused' });
    // What Mission Control says before Retry is pressed (issue 29): the same attempt, none used, even with max_attempts 1.
    const ctx = await openOrchestratorContext({ env: h.env() });
    expect((await branchDetail(ctx, doc.fork_id, 'branch-claude')).retry).toEqual({ kind: 'same_attempt', attempt: 1, max_attempts: 1 });

    unlinkSync(path.join(h.root, 'worktrees'));
    const first = await json(h, ['fork', 'resolve', doc.fork_id, 'branch-claude', '--retry']);
    expect(first.code).toBe(0);
    expect(branch(first.doc, 'branch-claude')).toMatchObject({ state: 'passed', attempt: 1 });
    const second = await json(h, ['fork', 'resolve', doc.fork_id, 'branch-codex', '--retry']);
    expect(branch(second.doc, 'branch-codex')).toMatchObject({ state: 'passed', attempt: 1 });
    expect(second.doc.state).toBe('ready');
    expect(h.gitIn(h.repo, 'branch', '--list', `citadel/${doc.fork_id}/*`).split('\n')).toHaveLength(2);
  });
});
