/**
 * The operator's recovery actions over the loopback web host against a real fork: resume after
 * lost runs, resolve each blocked branch (mark failed, retry), and clean, each a contract call whose
 * rules are the orchestrator's (refusals cross as typed values).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOrchestratorContext } from '../../../main/host/open-context';
import { createMissionControlService } from '../../../main/mission-control/service';
import { startWebHost } from '../../../main/web/web-host';
import { replySchema, type ChannelName, type ChannelResponse, type Reply } from '../../../shared/ipc/contract';
import { FIXED_SUM, ForkHarness } from '../../support/fork-harness';
import { REPO_ROOT } from '../../support/run-cli';
import { useTempDirs } from '../../support/temp-dir';
import { call, openEventStream } from './http-client';

const tempDir = useTempDirs();

/** A fork started detached by the CLI whose two runs then vanish without a recorded exit. */
async function forkWithLostRuns(h: ForkHarness): Promise<string> {
  await h.simulate({ claude: { outcome: 'hang' }, codex: { outcome: 'hang' } });
  // The same key store as the Mission Control below: the fork's signer must be found again to collect.
  const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile, '--detach', '--max-attempts', '2'], { CITADEL_KEYSTORE: 'file' });
  expect(run.code, run.stderr).toBe(0);
  for (const branchId of ['branch-claude', 'branch-codex']) {
    const status = h.readJson<{ supervisor_pid: number; runtime_pgid: number }>(h.attemptFile(doc.fork_id, branchId, 'run.json'));
    process.kill(status.supervisor_pid, 'SIGKILL');
    process.kill(-status.runtime_pgid, 'SIGKILL');
  }
  return doc.fork_id;
}

describe('operator actions over the loopback web host', () => {
  it('resumes, resolves (retry and mark failed) and cleans a real fork', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-web-ops-'));
    const forkId = await forkWithLostRuns(h);
    const staticDir = path.join(h.base, 'renderer');
    mkdirSync(staticDir);
    writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html>\n');
    const ctx = await openOrchestratorContext({ env: h.env({ CITADEL_KEYSTORE: 'file' }), supervisorScript: path.join(REPO_ROOT, 'out', 'cli', 'supervisor.mjs') });
    const logs: string[] = [];
    const service = createMissionControlService(ctx, { log: (line) => void logs.push(line) });
    const host = await startWebHost({ service, staticDir });

    async function post<C extends ChannelName>(channel: C, request: unknown): Promise<Reply<C>> {
      const response = await call(host.port, host.token, channel, request);
      return replySchema(channel).parse(JSON.parse(response.body)) as Reply<C>;
    }
    async function value<C extends ChannelName>(channel: C, request: unknown): Promise<ChannelResponse<C>> {
      const reply = await post(channel, request);
      if (!reply.ok) throw new Error(`${channel}: ${JSON.stringify(reply.error)}`);
      return reply.value;
    }
    const branchOf = (status: ChannelResponse<'forkStatus'>, id: string) => status.branches.find((b) => b.branch_id === id);

    try {
      // Recorded running, driven by nobody: the orchestrator reports it resumable.
      expect(await value('resumability', { fork_id: forkId })).toEqual({ resumable: true, reason: 'branches_unfinished' });

      const stream = await openEventStream(host.port, `/api/events?token=${host.token}`);
      await stream.until((text) => text.includes(': connected'));
      const resumed = await value('resumeFork', { fork_id: forkId });
      expect(resumed.fork_id).toBe(forkId);
      await stream.until((text) => text.includes(`"type":"fork_state","fork_id":"${forkId}","state":"blocked"`));
      stream.close();
      await service.drained();
      const blocked = await value('forkStatus', { fork_id: forkId });
      for (const id of ['branch-claude', 'branch-codex']) {
        expect(branchOf(blocked, id)).toMatchObject({ state: 'blocked', blocked_reason: 'process_lost', failure_code: 'RUNTIME_OUTCOME_UNKNOWN', attempt: 1 });
      }
      expect(await value('resumability', { fork_id: forkId })).toEqual({ resumable: false, reason: 'nothing_to_resume' });

      // The request schema refuses what the CLI would; the orchestrator refuses what it decides.
      expect(await post('resolveBranch', { fork_id: forkId, branch_id: 'branch-claude', resolution: 'rerun' })).toMatchObject({
        ok: false,
        error: { code: 'IPC_REQUEST_INVALID', violations: [{ path: '$.resolution' }] },
      });
      expect(await post('resolveBranch', { fork_id: forkId, branch_id: 'branch-gemini', resolution: 'retry' })).toMatchObject({ ok: false, error: { code: 'BRANCH_NOT_FOUND' } });

      // Retry: a fresh attempt from the base revision, launched at once; its run streams on.
      await h.simulate({ edits: [{ path: 'src/sum.js', content: FIXED_SUM }] });
      const retried = await value('resolveBranch', { fork_id: forkId, branch_id: 'branch-claude', resolution: 'retry' });
      expect(branchOf(retried, 'branch-claude')).toMatchObject({ state: 'running', attempt: 2, failure_code: null, blocked_reason: null });
      await service.drained();
      expect(branchOf(await value('forkStatus', { fork_id: forkId }), 'branch-claude')).toMatchObject({ state: 'passed', attempt: 2 });

      const markedFailed = await value('resolveBranch', { fork_id: forkId, branch_id: 'branch-codex', resolution: 'mark-failed' });
      expect(branchOf(markedFailed, 'branch-codex')).toMatchObject({ state: 'failed', failure_code: 'RUNTIME_OUTCOME_UNKNOWN', blocked_reason: null });
      expect(await post('resolveBranch', { fork_id: forkId, branch_id: 'branch-codex', resolution: 'retry' })).toMatchObject({ ok: false, error: { code: 'FORK_STATE_CONFLICT' } });

      // Clean removes the worktrees and git branches; the evidence and the record stay readable.
      expect(existsSync(h.worktree(forkId, 'branch-claude'))).toBe(true);
      const cleaned = await value('cleanFork', { fork_id: forkId });
      expect(cleaned).toEqual({
        fork_id: forkId,
        branches: [
          { branch_id: 'branch-claude', worktree_removed: true, branch_deleted: true },
          // Lost, then marked failed: never collected, so its result never reached the operator's repository.
          { branch_id: 'branch-codex', worktree_removed: true, branch_deleted: false },
        ],
      });
      expect(existsSync(h.worktree(forkId, 'branch-claude'))).toBe(false);
      expect(h.gitIn(h.repo, 'branch', '--list', `citadel/${forkId}/*`)).toBe('');
      expect(existsSync(h.attemptFile(forkId, 'branch-claude', 'execution-receipt.json', 2))).toBe(true);
      expect(await value('forkStatus', { fork_id: forkId })).toMatchObject({ fork_id: forkId, state: markedFailed.state });
      expect(await value('cleanFork', { fork_id: forkId })).toMatchObject({ branches: [{ worktree_removed: false, branch_deleted: false }, { worktree_removed: false, branch_deleted: false }] });
      expect(logs).toEqual([]);
    } finally {
      await host.close();
      await service.drained();
    }
  });
});
