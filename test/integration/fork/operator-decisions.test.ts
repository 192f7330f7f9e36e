/**
 * A branch whose process vanished without a recorded exit is blocked with its outcome unknown,
 * never relaunched on its own; only `citadel fork resolve` decides.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { branchDetail } from '../../../main/orchestrator';
import { branch, FIXED_SUM, ForkHarness, parseDoc } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

async function forkWithLostClaude(maxAttempts = 1): Promise<{ h: ForkHarness; forkId: string }> {
  const h = new ForkHarness(tempDir('citadel-decide-'));
  await h.simulate({ claude: { outcome: 'hang' }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
  const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--detach', '--max-attempts', String(maxAttempts)]);
  expect(run.code, run.stderr).toBe(0);
  const status = h.readJson<{ phase: string; supervisor_pid: number; runtime_pgid: number }>(h.attemptFile(doc.fork_id, 'branch-claude', 'run.json'));
  expect(status.phase).toBe('running');
  // Supervisor and runtime both die without anyone recording an exit.
  process.kill(status.supervisor_pid, 'SIGKILL');
  process.kill(-status.runtime_pgid, 'SIGKILL');
  return { h, forkId: doc.fork_id };
}

describe('lost runs and operator decisions', () => {
  it('resume marks a vanished run blocked (outcome unknown) and never relaunches it', async () => {
    const { h, forkId } = await forkWithLostClaude();
    const resumed = parseDoc(await h.cli(['fork', 'resume', forkId, '--json']));
    expect(branch(resumed, 'branch-claude')).toMatchObject({ state: 'blocked', blocked_reason: 'process_lost', failure_code: 'RUNTIME_OUTCOME_UNKNOWN', attempt: 1 });
    expect(branch(resumed, 'branch-codex')).toMatchObject({ state: 'passed' });
    expect(resumed.state).toBe('blocked');
    const again = parseDoc(await h.cli(['fork', 'resume', forkId, '--json']));
    expect(branch(again, 'branch-claude')).toMatchObject({ state: 'blocked', attempt: 1 });
    const journal = h.readJsonLines(`${h.forkDir(forkId)}/journal.jsonl`);
    expect(journal.filter((r) => r.effect === 'runtime.launch' && r.phase === 'intent' && r.key === 'branch-claude#1')).toHaveLength(1);
  });

  it('resolve --mark-failed settles the branch; a second decision is refused', async () => {
    const { h, forkId } = await forkWithLostClaude();
    await h.cli(['fork', 'resume', forkId, '--json']);
    const resolved = parseDoc(await h.cli(['fork', 'resolve', forkId, 'branch-claude', '--mark-failed', '--json']));
    expect(branch(resolved, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_OUTCOME_UNKNOWN', blocked_reason: null });
    expect(resolved.state).toBe('failed');
    const twice = await h.cli(['fork', 'resolve', forkId, 'branch-claude', '--retry', '--json']);
    expect(twice.code).toBe(1);
    expect(JSON.parse(twice.stdout)).toMatchObject({ error: { code: 'FORK_STATE_CONFLICT' } });
  });

  it('resolve --retry past the contract\'s max_attempts is refused with nothing changed', async () => {
    const { h, forkId } = await forkWithLostClaude(1);
    await h.cli(['fork', 'resume', forkId, '--json']);
    // Said before it is asked (issue 29), by the rule that refuses it.
    const ctx = await openOrchestratorContext({ env: h.env() });
    expect((await branchDetail(ctx, forkId, 'branch-claude')).retry).toEqual({ kind: 'exhausted', attempt: 1, max_attempts: 1 });
    expect((await branchDetail(ctx, forkId, 'branch-codex')).retry).toBeUndefined();
    const refused = await h.cli(['fork', 'resolve', forkId, 'branch-claude', '--retry', '--json']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'ATTEMPTS_EXHAUSTED', details: { attempt: 1, max_attempts: 1 } } });
    const status = parseDoc(await h.cli(['fork', 'status', forkId, '--json']));
    expect(branch(status, 'branch-claude')).toMatchObject({ state: 'blocked', attempt: 1 });
    expect(existsSync(h.worktree(forkId, 'branch-claude'))).toBe(true);
    const invalid = await h.cli(['fork', 'start', 'x', '--repo', h.repo, '--runtimes', 'claude,codex', '--max-attempts', '11', '--json']);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ error: { code: 'BUDGET_INVALID' } });
  });

  it('resolve --retry runs a fresh attempt from the base revision and keeps the old evidence', async () => {
    const { h, forkId } = await forkWithLostClaude(2);
    await h.cli(['fork', 'resume', forkId, '--json']);
    expect((await branchDetail(await openOrchestratorContext({ env: h.env() }), forkId, 'branch-claude')).retry).toEqual({ kind: 'next_attempt', attempt: 2, max_attempts: 2 });
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
    const run = await h.cli(['fork', 'resolve', forkId, 'branch-claude', '--retry', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const doc = parseDoc(run);
    expect(branch(doc, 'branch-claude')).toMatchObject({ state: 'passed', attempt: 2, failure_code: null });
    expect(doc.state).toBe('ready');
    expect(h.readJson(h.attemptFile(forkId, 'branch-claude', 'run.json', 1))).toMatchObject({ phase: 'running' });
    expect(h.readJson(h.attemptFile(forkId, 'branch-claude', 'execution-receipt.json', 2))).toMatchObject({ receipt: { attempt: 2, status: 'passed' } });
  });

  it('refuses bad requests with stable codes', async () => {
    const h = new ForkHarness(tempDir('citadel-decide-'));
    const missing = await h.cli(['fork', 'resume', 'fork-00000000000000000000000000', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 'FORK_NOT_FOUND' } });
    const notAnId = await h.cli(['fork', 'status', '../../etc', '--json']);
    expect(JSON.parse(notAnId.stdout)).toMatchObject({ error: { code: 'FORK_NOT_FOUND' } });
    const both = await h.cli(['fork', 'resolve', 'fork-00000000000000000000000000', 'branch-claude', '--json']);
    expect(both.code).toBe(2);
  });

  it('a collection refused with a typed error blocks the branch and records that error', async () => {
    const h = new ForkHarness(tempDir('citadel-decide-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }], delay_ms: 1500 }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }], delay_ms: 1500 } });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--detach']);
    expect(run.code, run.stderr).toBe(0);
    // Collected under another key store: a fresh key that is not the one the fork was created with.
    const resumed = parseDoc(await h.cli(['fork', 'resume', doc.fork_id, '--json'], { CITADEL_KEYSTORE: 'file' }));
    expect(branch(resumed, 'branch-claude')).toMatchObject({ state: 'blocked', blocked_reason: 'collect_failed', blocked_code: 'SIGNING_KEY_MISMATCH' });
    const status = await h.cli(['fork', 'status', doc.fork_id]);
    expect(status.stdout).toContain('collect_failed: SIGNING_KEY_MISMATCH');
    // Deciding clears it: the code explains the block, not the branch's later life.
    const resolved = parseDoc(await h.cli(['fork', 'resolve', doc.fork_id, 'branch-claude', '--mark-failed', '--json']));
    expect(branch(resolved, 'branch-claude')).toMatchObject({ state: 'failed', blocked_reason: null, blocked_code: null });
  });
});
