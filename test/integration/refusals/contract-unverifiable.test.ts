/**
 * A fork whose stored contract no longer verifies is `blocked` for that reason, never `ready`
 * (issue 12, clean refusals): overwritten by a runtime-only branch during the run, by another
 * process while the fork is detached, or after it finished. Real repositories, the real CLI as a
 * child process; runtime-only, since a contained branch cannot reach the fork root at all.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessGroupAlive, isSameProcessAlive } from '../../../main/runtimes/os-process/process-liveness';
import type { RunningStatus } from '../../../main/runtimes/supervisor/run-status';
import { branch, FIXED_SUM, ForkHarness, parseDoc, type ForkStatusDoc } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const RUNTIME_ONLY = ['--runtimes', 'claude,codex', '--containment', 'runtime-only'];
const BRANCHES = ['branch-claude', 'branch-codex'];

/** Run by the branch in its worktree, `<root>/worktrees/<fork>/<branch>`: the fork's contract is `<root>/forks/<fork>/contract.json`. */
const CONTRACT_FROM_WORKTREE = "path.join('..', '..', '..', 'forks', path.basename(path.dirname(process.cwd())), 'contract.json')";
const OVERWRITES: readonly (readonly [string, string])[] = [
  ['with JSON that is no contract', `const path = require('node:path'); require('node:fs').writeFileSync(${CONTRACT_FROM_WORKTREE}, '{}');`],
  [
    'with another valid contract (a longer budget)',
    `const path = require('node:path'); const fs = require('node:fs'); const file = ${CONTRACT_FROM_WORKTREE}; const c = JSON.parse(fs.readFileSync(file, 'utf8')); c.budget.max_duration_seconds += 1; fs.writeFileSync(file, JSON.stringify(c));`,
  ],
];

async function json(h: ForkHarness, args: readonly string[]): Promise<{ code: number | null; doc: ForkStatusDoc }> {
  const run = await h.cli([...args, '--json']);
  return { code: run.code, doc: parseDoc(run) };
}

function expectBlockedForContract(doc: ForkStatusDoc): void {
  expect(doc.state).toBe('blocked');
  for (const id of BRANCHES) expect(branch(doc, id)).toMatchObject({ state: 'blocked', blocked_reason: 'contract_unverifiable', blocked_code: 'CONTRACT_UNVERIFIABLE' });
}

/** mark-failed on every branch, then clean: the fork ends failed, its repositories gone. */
async function expectEndable(h: ForkHarness, forkId: string): Promise<void> {
  for (const id of BRANCHES) expect((await json(h, ['fork', 'resolve', forkId, id, '--mark-failed'])).code).toBe(0);
  // A branch marked failed has no evidence to count: the still-broken contract does not block it again.
  expect((await json(h, ['fork', 'resume', forkId])).doc.state).toBe('failed');
  const cleaned = await h.cli(['fork', 'clean', forkId, '--json']);
  expect(cleaned.code, cleaned.stdout).toBe(0);
  expect((await json(h, ['fork', 'status', forkId])).doc.state).toBe('failed');
}

describe('a fork whose contract no longer verifies', () => {
  it.each(OVERWRITES)('is blocked, never ready, when a branch overwrites contract.json %s during the run', async (_name, script) => {
    const h = new ForkHarness(tempDir('citadel-contract-'));
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }], codex: { commands: [[process.execPath, '-e', script]] } });
    const { run, doc } = await h.startJson(RUNTIME_ONLY);
    expect(run.code, run.stderr).toBe(0);
    expectBlockedForContract(doc);
    // The record never claimed `ready` on the way.
    expect(h.readJson<{ history: { state: string }[] }>(path.join(h.forkDir(doc.fork_id), 'fork.json')).history.map((c) => c.state)).not.toContain('ready');
    expectBlockedForContract((await json(h, ['fork', 'status', doc.fork_id])).doc);
    const resumed = await json(h, ['fork', 'resume', doc.fork_id]);
    expect(resumed.code).toBe(0);
    expectBlockedForContract(resumed.doc);
    await expectEndable(h, doc.fork_id);
  });

  it('overwritten while detached: resume stops the live runs and blocks every branch', async () => {
    const h = new ForkHarness(tempDir('citadel-contract-'));
    await h.simulate({ outcome: 'hang' });
    const { run, doc } = await h.startJson([...RUNTIME_ONLY, '--detach']);
    expect(run.code, run.stderr).toBe(0);
    const contractFile = path.join(h.forkDir(doc.fork_id), 'contract.json');
    const contract = JSON.parse(readFileSync(contractFile, 'utf8')) as { objective_digest: string };
    writeFileSync(contractFile, JSON.stringify({ ...contract, objective_digest: `sha256:${'0'.repeat(64)}` }));
    const runs = BRANCHES.map((id) => h.readJson<RunningStatus>(h.attemptFile(doc.fork_id, id, 'run.json')));
    const alive = (run: RunningStatus): boolean => isSameProcessAlive(run.supervisor_pid, run.supervisor_start_time) || isProcessGroupAlive(run.runtime_pgid);
    expect(runs.filter(alive)).toHaveLength(2);
    try {
      const resumed = await json(h, ['fork', 'resume', doc.fork_id]);
      expect(resumed.code).toBe(0);
      expectBlockedForContract(resumed.doc);
      expect(runs.filter(alive)).toEqual([]);
      await expectEndable(h, doc.fork_id);
    } finally {
      for (const run of runs.filter(alive)) process.kill(-run.runtime_pgid, 'SIGKILL');
    }
  });

  it('overwritten after the fork was ready: status reads blocked at once, and resume records it', async () => {
    const h = new ForkHarness(tempDir('citadel-contract-'));
    await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
    const { doc } = await h.startJson(RUNTIME_ONLY);
    expect(doc.state).toBe('ready');
    writeFileSync(path.join(h.forkDir(doc.fork_id), 'contract.json'), '{}');
    expectBlockedForContract((await json(h, ['fork', 'status', doc.fork_id])).doc);
    // status only reads: the record still says what was recorded.
    expect(h.readJson<{ state: string }>(path.join(h.forkDir(doc.fork_id), 'fork.json')).state).toBe('ready');
    expectBlockedForContract((await json(h, ['fork', 'resume', doc.fork_id])).doc);
    expect(h.readJson<{ state: string }>(path.join(h.forkDir(doc.fork_id), 'fork.json')).state).toBe('blocked');
    await expectEndable(h, doc.fork_id);
  });
});
