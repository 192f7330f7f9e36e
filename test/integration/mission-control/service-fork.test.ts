import { describe, expect, it } from 'vitest';
import type { MissionControl } from '../../../main/mission-control/service';
import type { ForkEvent } from '../../../shared/fork/events';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { useTempDirs } from '../../support/temp-dir';
import { serviceOver, value } from '../../support/service-context';
import { BUILTIN_ADAPTERS } from '../../../main/runtimes/registry';

const tempDir = useTempDirs();

/** Resolves with every event seen up to and including the first that `done` accepts. */
function eventsUntil(service: MissionControl, done: (event: ForkEvent) => boolean): Promise<ForkEvent[]> {
  return new Promise((resolve) => {
    const seen: ForkEvent[] = [];
    const unsubscribe = service.subscribe((event) => {
      seen.push(event);
      if (done(event)) {
        unsubscribe();
        resolve(seen);
      }
    });
  });
}

describe('a real fork through the Mission Control service', () => {
  it('starts, streams events to a subscriber, reaches ready, and goes through compare, select, land, replay and proof', { timeout: 90_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-mc-fork-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const { service, logs, sinkEvents } = await serviceOver(h);
    const ready = eventsUntil(service, (event) => event.type === 'fork_state' && event.state === 'ready');
    // A subscriber that throws is cut off; the fork and the other subscribers go on.
    service.subscribe(() => {
      throw new Error('a broken subscriber');
    });

    const started = value(
      await service.handle('startFork', {
        objective: 'Fix the sum function',
        repo: h.repo,
        executors: { kind: 'runtimes', list: 'claude,codex' },
        workflow_file: h.workflowFile,
        budget_seconds: 120,
      }),
    );
    // startFork answers once the fork is recorded; its launches and the rest arrive as events.
    expect(started.state).toBe('pending');
    expect(started.branches.map((b) => b.state)).toEqual(['pending', 'pending']);
    const forkId = started.fork_id;

    const events = await ready;
    await service.drained();
    expect(service.runningForks()).toEqual([]);
    expect(events.every((event) => event.fork_id === forkId)).toBe(true);
    for (const branchId of ['branch-claude', 'branch-codex']) {
      expect(events).toContainEqual({ type: 'runtime', fork_id: forkId, branch_id: branchId, phase: 'exited' });
      expect(events).toContainEqual(expect.objectContaining({ type: 'verifier_step', branch_id: branchId, step: 'workflow_verifier' }));
    }
    expect(events).toContainEqual({ type: 'branch_state', fork_id: forkId, branch_id: 'branch-claude', state: 'passed', failure_code: null });
    // Issue 14: the launch carries its clock; Codex's lines stream as they arrive (the last before the exit), Claude Code's do not.
    expect(events).toContainEqual(expect.objectContaining({ type: 'runtime', branch_id: 'branch-codex', phase: 'launched', run: expect.objectContaining({ budget_seconds: 120, streams_output: true }) }));
    const activity = events.filter((e) => e.type === 'runtime_activity');
    expect(activity.filter((e) => e.branch_id === 'branch-codex').map((e) => e.kind)).toContain('turn_completed');
    expect(activity.filter((e) => e.branch_id === 'branch-claude')).toEqual([]);
    // Opened afterwards, the fork's timeline is rebuilt from its journal, records and receipts.
    const timeline = value(await service.handle('forkTimeline', { fork_id: forkId })).map(({ event }) => event);
    for (const branchId of ['branch-claude', 'branch-codex']) {
      for (const phase of ['worktree_ready', 'launched', 'exited']) expect(timeline).toContainEqual(expect.objectContaining({ type: 'runtime', branch_id: branchId, phase }));
      expect(timeline).toContainEqual(expect.objectContaining({ type: 'verifier_step', branch_id: branchId, step: 'workflow_verifier' }));
    }
    expect(timeline).toContainEqual({ type: 'branch_state', fork_id: forkId, branch_id: 'branch-codex', state: 'failed', failure_code: 'VERIFIER_FAILED' });
    expect(timeline).toContainEqual({ type: 'fork_history', fork_id: forkId, state: 'ready' });
    // A finished Codex branch's timeline holds what its drive streamed, as streamed, from the attempt's live trail.
    expect(timeline.filter((e) => e.type === 'runtime_activity')).toEqual(activity);
    expect(timeline.filter((e) => e.type === 'live_diff')).toEqual([]);
    expect(sinkEvents).toEqual(expect.arrayContaining(events));
    expect(logs.filter((line) => line.includes('a broken subscriber'))).toHaveLength(1);

    const status = value(await service.handle('forkStatus', { fork_id: forkId }));
    expect(status).toMatchObject({ state: 'ready', schema_version: 1 });
    expect(value(await service.handle('listForks', { state: 'ready' })).forks.map((f) => f.fork_id)).toEqual([forkId]);
    expect(value(await service.handle('listForks', { state: 'running' })).forks).toEqual([]);

    const detail = value(await service.handle('branchDetail', { fork_id: forkId, branch_id: 'branch-claude' }));
    expect(detail).toMatchObject({ receipt_verified: true, verification_reasons: [], state: 'passed', diff_summary: { files_changed: 1 } });
    expect(detail.diff_text).toContain('+  return a + b;');
    expect(detail.diff_text).toContain('-  return a - b;');
    expect(detail.verifier?.status).toBe('passed');
    const wrong = value(await service.handle('branchDetail', { fork_id: forkId, branch_id: 'branch-codex' }));
    expect(wrong).toMatchObject({ receipt_verified: true, state: 'failed', verifier: { status: 'failed' } });
    expect(await service.handle('branchDetail', { fork_id: forkId, branch_id: 'branch-nope' })).toMatchObject({ ok: false, error: { code: 'BRANCH_NOT_FOUND' } });

    const comparison = value(await service.handle('compareFork', { fork_id: forkId }));
    expect(comparison).toMatchObject({ outcome: 'recommend', recommended_branch_id: 'branch-claude' });

    const selection = value(await service.handle('selectBranch', { fork_id: forkId, branch_id: 'branch-claude', reason: 'the verifier passed', actor: 'alice' }));
    expect(selection).toMatchObject({ fork_id: forkId, branch_id: 'branch-claude', actor: 'alice' });
    const checks = value(await service.handle('landingChecks', { fork_id: forkId }));
    expect(checks.checks.every((check) => check.ok)).toBe(true);
    expect(checks.token).toMatch(/^[0-9a-f]{12}$/);
    const wrongToken = checks.token === 'aaaaaaaaaaaa' ? 'bbbbbbbbbbbb' : 'aaaaaaaaaaaa';
    expect(await service.handle('confirmLanding', { fork_id: forkId, token: wrongToken })).toMatchObject({ ok: false, error: { code: 'LANDING_TOKEN_MISMATCH' } });
    const landed = value(await service.handle('confirmLanding', { fork_id: forkId, token: checks.token ?? '' }));
    expect(landed.merge_commit).toBe(h.gitIn(h.repo, 'rev-parse', 'HEAD'));

    const replay = value(await service.handle('exportReplay', { fork_id: forkId }));
    const proof = value(await service.handle('exportProof', { fork_id: forkId }));
    const projection = value(await service.handle('proofProjection', { fork_id: forkId }));
    expect(projection).toMatchObject({ fork_id: forkId, report_digest: proof.digest, branches: 2, verified_receipts: 2, outcome: 'recommend' });

    const openedProof = value(await service.handle('openArtifact', { text: proof.text }));
    expect(openedProof).toMatchObject({ kind: 'citadel_proof_report', digest: proof.digest, digest_checked: true });
    const openedReplay = value(await service.handle('openArtifact', { text: replay.text }));
    expect(openedReplay).toMatchObject({ kind: 'citadel_replay', digest: replay.digest, digest_checked: false });
    // A proof whose embedded replay was edited still opens, and says its digest does not match.
    const edited = JSON.parse(proof.text) as { replay: { fork: { demo: boolean } } };
    edited.replay.fork.demo = !edited.replay.fork.demo;
    expect(value(await service.handle('openArtifact', { text: JSON.stringify(edited) })).digest_checked).toBe(false);
    expect(await service.handle('openArtifact', { text: JSON.stringify({ ...JSON.parse(replay.text), extra: 1 }) })).toMatchObject({
      ok: false,
      error: { code: 'ARTIFACT_INVALID', violations: [{ path: '$.extra', rule: 'unknown_field' }] },
    });
    expect(await service.handle('openArtifact', { text: '{"kind":"something_else"}' })).toMatchObject({ ok: false, error: { code: 'ARTIFACT_INVALID' } });
    expect(await service.handle('openArtifact', { text: '{"kind":"citadel_replay","kind":"citadel_replay"}' })).toMatchObject({
      ok: false,
      error: { code: 'ARTIFACT_INVALID', violations: [{ rule: 'duplicate_key' }] },
    });

    const settings = value(await service.handle('settings', {}));
    const signer = h.readJson<{ public_key_digest: string }>(`${h.forkDir(forkId)}/signer.json`);
    expect(signer.public_key_digest.startsWith(`sha256:${settings.public_key_fingerprint}`)).toBe(true);
    const readiness = value(await service.handle('readiness', {}));
    // Every registered runtime is probed, and the harness's simulated executables answer for each.
    expect(readiness.runtimes.map((r) => [r.runtime, r.executable.found])).toEqual(Object.keys(BUILTIN_ADAPTERS).map((runtime) => [runtime, true]));
  });

  it('stops a running branch; the background run records it as stopped by the operator', { timeout: 90_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-mc-stop-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { outcome: 'hang' } });
    const { service, logs } = await serviceOver(h);
    const started = value(
      await service.handle('startFork', { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: h.workflowFile, budget_seconds: 600 }),
    );
    const codexEnded = eventsUntil(service, (event) => event.type === 'branch_state' && event.branch_id === 'branch-codex' && event.state !== 'running');
    expect(service.runningForks()).toEqual([started.fork_id]);
    // The background drive holds the fork: nothing for an operator to resume while it runs, and it is this process that drives it.
    await expect.poll(async () => value(await service.handle('resumability', { fork_id: started.fork_id })), { timeout: 10_000 }).toEqual({
      resumable: false,
      reason: 'in_progress',
      driver: { by: 'this_process' },
    });
    const stopped = value(await service.handle('stopBranch', { fork_id: started.fork_id, branch_id: 'branch-codex' }));
    expect(stopped.fork_id).toBe(started.fork_id);
    const events = await codexEnded;
    expect(events.at(-1)).toMatchObject({ state: 'failed', failure_code: 'STOPPED_BY_OPERATOR' });
    await service.drained();
    expect(value(await service.handle('forkStatus', { fork_id: started.fork_id })).branches.find((b) => b.branch_id === 'branch-codex')).toMatchObject({
      state: 'failed',
      failure_code: 'STOPPED_BY_OPERATOR',
    });
    expect(await service.handle('stopBranch', { fork_id: started.fork_id, branch_id: 'branch-codex' })).toMatchObject({ ok: false, error: { code: 'FORK_STATE_CONFLICT' } });
    expect(value(await service.handle('resumability', { fork_id: started.fork_id }))).toEqual({ resumable: false, reason: 'nothing_to_resume' });
    expect(logs).toEqual([]);
  });

  it('a launch that fails after the fork was created answers with the recorded fork and a drive_failed event, not a refusal', { timeout: 60_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-mc-fork-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    // A supervisor that cannot start: the fork is created, then its first launch throws.
    const { service, logs } = await serviceOver(h, `${h.base}/missing-supervisor.mjs`);
    const failed = eventsUntil(service, (event) => event.type === 'drive_failed');
    const started = value(
      await service.handle('startFork', { objective: 'Fix the sum function', repo: h.repo, executors: { kind: 'runtimes', list: 'claude,codex' }, workflow_file: null, budget_seconds: null }),
    );
    expect(started.fork_id).toMatch(/^fork-/);
    expect(started.branches.map((b) => b.branch_id)).toEqual(['branch-claude', 'branch-codex']);
    expect((await failed).at(-1)).toMatchObject({ type: 'drive_failed', fork_id: started.fork_id, code: 'SUPERVISOR_START_FAILED' });
    await service.drained();
    expect(logs.join('\n')).toContain(`citadel fork resume ${started.fork_id}`);
    // The fork stays as recorded for the operator: readable, and resumable once the cause is fixed.
    expect(value(await service.handle('forkStatus', { fork_id: started.fork_id })).fork_id).toBe(started.fork_id);
  });
});
