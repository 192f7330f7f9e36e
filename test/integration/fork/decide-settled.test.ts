/**
 * Deciding from any settled fork (issue 29, item 1), through the real CLI on real git with
 * simulated runtimes: nothing is selected while a branch runs; once every branch has settled, the
 * one branch with a verified, comparable result is selected from a `failed` fork with the
 * against-evidence acknowledgement (the comparison had nothing to compare it with) and lands; a
 * fork where no branch has such a result refuses every selection.
 */
import { describe, expect, it } from 'vitest';
import { readStatus } from '../../../main/runtimes/process-control/read-status';
import { isProcessGroupAlive, isSameProcessAlive } from '../../../main/runtimes/os-process/process-liveness';
import type { SelectionRecord } from '../../../shared/fork/landing';
import { branch, FIXED_SUM, ForkHarness, parseDoc } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const env = { CITADEL_KEYSTORE: 'file' };
const ALONE = "branch-codex's verifier passed; the comparison recommends no branch (fewer than two branches have a verified, comparable result, so none was compared)";
const errorOf = (stdout: string) => (JSON.parse(stdout) as { error: { code: string; message: string; details?: unknown } }).error;

describe('deciding from a settled fork', () => {
  it('refuses while a branch runs; after STOP, the passing branch is selected with the acknowledgement and lands', { timeout: 180_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-decide-'));
    await h.simulate({ claude: { outcome: 'hang' }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] } });
    const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--detach'], env);
    expect(run.code, run.stderr).toBe(0);
    const forkId = doc.fork_id;
    const claude = await readStatus(h.attemptFile(forkId, 'branch-claude', 'run.json'));
    if (claude.phase !== 'running') throw new Error(`claude is not running: ${JSON.stringify(claude)}`);
    try {
      const select = (...extra: string[]) => h.cli(['fork', 'select', forkId, 'branch-codex', '--reason', 'the one that fixed it', '--json', ...extra], env);

      // Claude still runs (and codex's end is not collected yet: nothing drives a detached fork):
      // refused in plain words, with the acknowledgement too.
      for (const attempt of [await select(), await select('--against-evidence')]) {
        expect(attempt.code).toBe(1);
        expect(errorOf(attempt.stdout)).toMatchObject({
          code: 'FORK_STATE_CONFLICT',
          message: 'branch-claude and branch-codex are still running; select once every branch has settled',
          details: { state: 'running', unsettled: ['branch-claude', 'branch-codex'] },
        });
      }
      expect(parseDoc(await h.cli(['fork', 'status', forkId, '--json'], env))).toMatchObject({ state: 'running', revision: doc.revision });

      const stopped = await h.cli(['fork', 'stop', forkId, 'branch-claude', '--json'], env);
      expect(stopped.code, stopped.stderr).toBe(0);
      // Codex ended on its own; its result is collected by resume (the fork was detached).
      const resumed = parseDoc(await h.cli(['fork', 'resume', forkId, '--json'], env));
      expect(branch(resumed, 'branch-claude')).toMatchObject({ state: 'failed', failure_code: 'STOPPED_BY_OPERATOR' });
      expect(branch(resumed, 'branch-codex')).toMatchObject({ state: 'passed' });
      // The derived state keeps its rule: one comparable branch is not `ready`.
      expect(resumed.state).toBe('failed');

      const stoppedBranch = await h.cli(['fork', 'select', forkId, 'branch-claude', '--reason', 'x', '--against-evidence', '--json'], env);
      expect(errorOf(stoppedBranch.stdout)).toMatchObject({ code: 'SELECTION_REFUSED', details: { reasons: ['runtime_did_not_complete'] } });
      expect(errorOf(stoppedBranch.stdout).message).toContain('STOPPED_BY_OPERATOR');

      // Nothing was compared with codex, so selecting it needs the acknowledgement, which names that.
      const unacknowledged = await select();
      expect(unacknowledged.code).toBe(1);
      expect(errorOf(unacknowledged.stdout)).toMatchObject({ code: 'SELECTION_AGAINST_EVIDENCE' });
      expect(errorOf(unacknowledged.stdout).message).toContain(ALONE);
      expect(parseDoc(await h.cli(['fork', 'status', forkId, '--json'], env))).toMatchObject({ state: 'failed', revision: resumed.revision });

      const acknowledged = await select('--against-evidence');
      expect(acknowledged.code, acknowledged.stdout).toBe(0);
      const selection = (JSON.parse(acknowledged.stdout) as { selection: SelectionRecord }).selection;
      expect(selection).toMatchObject({
        branch_id: 'branch-codex',
        fork_revision: resumed.revision,
        against_evidence: {
          acknowledged: true,
          evidence: { outcome: 'insufficient-evidence', recommended_branch_id: null, verifier_status: 'passed', status: 'passed', failure_code: null },
        },
      });
      expect(parseDoc(await h.cli(['fork', 'status', forkId, '--json'], env))).toMatchObject({ state: 'selected', revision: resumed.revision + 1 });

      // Landing works from it: every check passes, with the acknowledgement as a warning, and one merge commit lands.
      const plan = await h.cli(['fork', 'land', forkId], env);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout.split('\n')[0]).toBe(`WARNING: branch-codex was selected against the evidence (acknowledged): ${ALONE}`);
      const before = h.gitIn(h.repo, 'rev-parse', 'HEAD');
      await h.landConfirmed(forkId, env);
      const merge = h.gitIn(h.repo, 'rev-parse', 'HEAD');
      expect(h.gitIn(h.repo, 'rev-list', '--merges', 'main')).toBe(merge);
      expect(h.gitIn(h.repo, 'rev-parse', `${merge}^1`)).toBe(before);
      expect(h.gitIn(h.repo, 'show', 'main:src/sum.js')).toBe(FIXED_SUM.trim());
      expect(parseDoc(await h.cli(['fork', 'status', forkId, '--json'], env))).toMatchObject({ state: 'landed' });
      const again = await select('--against-evidence');
      expect(errorOf(again.stdout)).toMatchObject({ code: 'FORK_STATE_CONFLICT', details: { landing: 'landed' } });
    } finally {
      // Only claude's own recorded processes, should a failed assertion leave them running.
      if (isSameProcessAlive(claude.supervisor_pid, claude.supervisor_start_time)) process.kill(claude.supervisor_pid, 'SIGKILL');
      if (isProcessGroupAlive(claude.runtime_pgid)) process.kill(-claude.runtime_pgid, 'SIGKILL');
    }
  });

  it('a fork where every branch failed its run refuses every selection as not comparable', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-decide-'));
    await h.simulate({ claude: { outcome: 'auth_error' }, codex: { outcome: 'auth_error' } });
    const { doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], env);
    expect(doc.state).toBe('failed');
    for (const id of ['branch-claude', 'branch-codex']) {
      const refused = await h.cli(['fork', 'select', doc.fork_id, id, '--reason', 'anything', '--against-evidence', '--json'], env);
      expect(refused.code).toBe(1);
      expect(errorOf(refused.stdout)).toMatchObject({ code: 'SELECTION_REFUSED', details: { reasons: ['runtime_did_not_complete'] } });
    }
    expect(parseDoc(await h.cli(['fork', 'status', doc.fork_id, '--json'], env))).toMatchObject({ state: 'failed', revision: doc.revision });
  });
});
