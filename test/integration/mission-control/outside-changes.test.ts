import { describe, expect, it } from 'vitest';
import type { ForkEvent } from '../../../shared/fork/events';
import { FIXED_SUM, ForkHarness, WRONG_SUM } from '../../support/fork-harness';
import { serviceOver, value } from '../../support/service-context';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
// The service under test keeps its keys in the file store (service-context.ts); so does the other process.
const SAME_KEYS = { CITADEL_KEYSTORE: 'file' };

const until = async (check: () => boolean, what: string, ms = 15_000): Promise<void> => {
  for (const end = Date.now() + ms; !check(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Mission Control hears what other processes do to the fork root (issue 14)', () => {
  it('reports forks the CLI starts, finishes and selects as events, and its own changes once', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-mc-outside-'));
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: WRONG_SUM }] } });
    const start = async () => {
      const { run, doc } = await h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], SAME_KEYS);
      expect(run.code, run.stderr).toBe(0);
      return doc.fork_id;
    };
    const before = await start();
    const { service } = await serviceOver(h);
    const events: ForkEvent[] = [];
    const unsubscribe = service.subscribe((event) => void events.push(event));
    const forkStates = (forkId: string, state: string) => events.filter((e) => e.type === 'fork_state' && e.fork_id === forkId && e.state === state);

    // What was there when the watch began is not news.
    await pause(2_500);
    expect(events).toEqual([]);
    // A change to it made elsewhere is.
    const selected = await h.cli(['fork', 'select', before, 'branch-claude', '--reason', 'the verifier passed', '--actor', 'alice', '--json'], SAME_KEYS);
    expect(selected.code, selected.stderr).toBe(0);
    await until(() => forkStates(before, 'selected').length === 1, 'the selection the CLI made');

    // A fork driven to the end by another process: this one learns of it only from the fork root.
    const later = await start();
    await until(() => forkStates(later, 'ready').length === 1, 'the fork the CLI drove to ready');
    expect(events).toContainEqual({ type: 'branch_state', fork_id: later, branch_id: 'branch-claude', state: 'passed', failure_code: null });
    expect(events).toContainEqual({ type: 'branch_state', fork_id: later, branch_id: 'branch-codex', state: 'failed', failure_code: 'VERIFIER_FAILED' });

    // Landed here: its event comes from this process alone, however many looks pass after it.
    const checks = value(await service.handle('landingChecks', { fork_id: before }));
    value(await service.handle('confirmLanding', { fork_id: before, token: checks.token ?? '' }));
    expect(forkStates(before, 'landed')).toHaveLength(1);
    await pause(5_000);
    expect(forkStates(before, 'landed')).toHaveLength(1);
    expect(forkStates(before, 'selected')).toHaveLength(1);
    expect(forkStates(later, 'ready')).toHaveLength(1);
    unsubscribe();
  });

  it('relays the live diff and Codex activity of a branch the CLI runs, each once, as its own timeline has them', { timeout: 120_000 }, async () => {
    const h = new ForkHarness(tempDir('citadel-mc-outside-live-'));
    // Codex prints its events as they happen, over 9 s, its edit halfway: long enough for a few looks.
    await h.simulate({ claude: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: FIXED_SUM }], delay_ms: 9_000 } });
    const { service } = await serviceOver(h);
    const events: ForkEvent[] = [];
    const unsubscribe = service.subscribe((event) => void events.push(event));
    const started = h.startJson(['--runtimes', 'claude,codex', '--workflow', h.workflowFile], SAME_KEYS);
    const ofCodex = <T extends ForkEvent['type']>(type: T) => events.filter((e): e is Extract<ForkEvent, { type: T }> => e.type === type && 'branch_id' in e && e.branch_id === 'branch-codex');
    const exitedAt = () => events.findIndex((e) => e.type === 'branch_state' && e.branch_id === 'branch-codex' && e.state !== 'running' && e.state !== 'pending');

    // While it runs: its worktree's diff once the edit is made, and what Codex printed so far.
    await until(() => ofCodex('live_diff').some((e) => e.files_changed === 1), 'the live diff of the CLI-driven branch', 30_000);
    // With the file it changed named (issue 29).
    expect(ofCodex('live_diff').find((e) => e.files_changed === 1)?.paths).toEqual(['src/sum.js']);
    expect(ofCodex('runtime_activity').length).toBeGreaterThan(0);
    const { run, doc } = await started;
    expect(run.code, run.stderr).toBe(0);
    await until(() => events.some((e) => e.type === 'fork_state' && e.fork_id === doc.fork_id && e.state === 'ready'), 'the fork the CLI drove to ready');
    await pause(4_500);
    expect(events.findIndex((e) => e.type === 'live_diff' && e.branch_id === 'branch-codex')).toBeLessThan(exitedAt());

    const relayed = ofCodex('runtime_activity');
    expect(relayed.map((e) => e.kind)).toContain('turn_completed');
    // Each once: another look after the end repeats none.
    expect(new Set(relayed.map((e) => `${e.at} ${e.summary}`)).size).toBe(relayed.length);
    // The same entries, with the same times, as the fork's timeline rebuilt from disk.
    const timeline = value(await service.handle('forkTimeline', { fork_id: doc.fork_id })).map(({ event }) => event);
    expect(timeline.filter((e) => e.type === 'runtime_activity')).toEqual(relayed);
    unsubscribe();
  });
});
