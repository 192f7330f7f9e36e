import { describe, expect, it } from 'vitest';
import type { ForkEvent, PastForkEvent } from '../../shared/fork/events';
import { ForkTimeline } from '../../renderer/src/lib/timeline.svelte';
import { fakeClient } from './support/fake-client';
import { FORK_ID } from './support/fixtures';

const BRANCH = 'branch-codex';
const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();
const branchState = (state: 'running' | 'passed' | 'failed', branchId = BRANCH): ForkEvent => ({ type: 'branch_state', fork_id: FORK_ID, branch_id: branchId, state, failure_code: null });
const activity = (summary: string, at: string, seq: number): ForkEvent => ({ type: 'runtime_activity', fork_id: FORK_ID, branch_id: BRANCH, at, seq, kind: 'command_started', summary });

/** A timeline that receives `live` before its past (`past`) has been read, as the Fork view's does. */
async function merged(live: readonly ForkEvent[], past: readonly PastForkEvent[]): Promise<ForkTimeline> {
  const { client } = fakeClient({ forkTimeline: () => ({ ok: true, value: [...past] }) });
  const timeline = new ForkTimeline(FORK_ID);
  for (const event of live) timeline.record(event);
  await timeline.load(client);
  return timeline;
}

const texts = (timeline: ForkTimeline): string[] => (timeline.branches[BRANCH] ?? []).map((entry) => entry.text);

describe('a fork timeline puts its past before what arrived live (issue 14)', () => {
  it('drops a live event the past also holds, once', async () => {
    const timeline = await merged([branchState('running')], [{ at: ago(100), event: branchState('running') }]);
    expect(texts(timeline)).toEqual(['state running']);
  });

  it('keeps every live repeat of an event the past holds fewer times', async () => {
    const timeline = await merged([branchState('running'), branchState('running')], [{ at: ago(100), event: branchState('running') }]);
    expect(texts(timeline)).toEqual(['state running', 'state running']);
  });

  it('knows a runtime activity by its time and number: it is shown once however often it comes; the same words read in one tick are two', async () => {
    const [t1, t2, t3] = [ago(3_000), ago(2_000), ago(1_000)];
    const timeline = await merged([activity('npm test', t1, 1), activity('npm test', t2, 2), activity('npm test', t2, 3)], [{ at: t1, event: activity('npm test', t1, 1) }]);
    expect(texts(timeline)).toEqual(['output: npm test', 'output: npm test', 'output: npm test']);
    // Another process's drive is relayed a poll late: what the view already shows is not shown twice.
    timeline.record(activity('npm test', t1, 1));
    timeline.record(activity('npm test', t2, 3));
    expect(texts(timeline)).toHaveLength(3);
    timeline.record(activity('npm test', t3, 4));
    expect(texts(timeline)).toHaveLength(4);
    // Shown at when the drive read it, not when the relay came.
    expect(timeline.branches[BRANCH]?.map((entry) => entry.at.toISOString())).toEqual([t1, t2, t2, t3]);
  });

  it('keeps a live event whose only twin in the past is long before the timeline began (an earlier attempt)', async () => {
    const timeline = await merged(
      [branchState('running')],
      [
        { at: ago(3_600_000), event: branchState('running') },
        { at: ago(3_500_000), event: branchState('failed') },
      ],
    );
    expect(texts(timeline)).toEqual(['state running', 'state failed', 'state running']);
  });

  it('counts a live fork state and the history line of the same state as one event', async () => {
    const timeline = await merged([{ type: 'fork_state', fork_id: FORK_ID, state: 'ready', revision: 4 }], [{ at: ago(100), event: { type: 'fork_history', fork_id: FORK_ID, state: 'ready' } }]);
    expect(timeline.fork.map((entry) => entry.text)).toEqual(['fork ready']);
  });

  it('keeps events of other branches apart: the same words on another branch are not a twin', async () => {
    const timeline = await merged([branchState('running')], [{ at: ago(100), event: branchState('running', 'branch-claude') }]);
    expect(texts(timeline)).toEqual(['state running']);
    expect(timeline.branches['branch-claude']?.map((entry) => entry.text)).toEqual(['state running']);
  });
});
