import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OrchestratorContext } from '../../../main/host/context';
import { watchOutsideChanges, type OutsideChangeWatch } from '../../../main/orchestrator/outside-changes';
import type { ForkEvent } from '../../../shared/fork/events';
import type { ForkRecord } from '../../../shared/fork/fork-record';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const FORK = 'fork-01aaaaaaaaaaaaaaaaaaaaaaaa';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// Two looks of the watch (one every 2 s) and the wait before a change it read is news.
const TWO_LOOKS = 4_600;
const LONG_AGO = new Date(Date.now() - 3_600_000).toISOString();
const now = (): string => new Date().toISOString();

type BranchState = ForkRecord['branches'][number]['state'];

/**
 * The fork root as the watch sees it: record files on disk (their versions are what it polls),
 * read back as written. Only the fields the watch reads are written; `onRead` runs after each read.
 */
function forkRoot() {
  const root = tempDir('citadel-outside-');
  const file = path.join(root, FORK, 'fork.json');
  mkdirSync(path.dirname(file));
  let onRead: (() => void) | null = null;
  const store = {
    listForkIds: async () => [FORK],
    file: () => file,
    readRecord: async () => {
      const record = JSON.parse(readFileSync(file, 'utf8')) as ForkRecord;
      onRead?.();
      return record;
    },
  };
  // Each branch as [its state, when it moved to it]; the fork has been running since LONG_AGO.
  const write = (branches: Record<string, [BranchState, string]>) =>
    writeFileSync(
      file,
      JSON.stringify({
        fork_id: FORK,
        state: 'running',
        revision: 1,
        history: [{ state: 'running', at: LONG_AGO }],
        branches: Object.entries(branches).map(([branch_id, [state, at]]) => ({ branch_id, state, failure_code: null, history: [{ state, at }] })),
      }),
    );
  return { ctx: { store } as unknown as OrchestratorContext, write, onRead: (run: () => void) => (onRead = run) };
}

let watch: OutsideChangeWatch | null = null;
afterEach(() => watch?.stop());

describe('changes other processes make to the fork root (issue 14)', () => {
  it('of a fork that was there before the watch, reports only what moved after it began', { timeout: 20_000 }, async () => {
    const root = forkRoot();
    root.write({ 'branch-a': ['running', LONG_AGO], 'branch-b': ['running', LONG_AGO] });
    const events: ForkEvent[] = [];
    watch = watchOutsideChanges(root.ctx, { publish: (event) => events.push(event), drivenHere: () => [] });
    await pause(2_300);
    expect(events).toEqual([]);

    // Another process moves one branch; the fork stays running.
    root.write({ 'branch-a': ['running', LONG_AGO], 'branch-b': ['failed', now()] });
    await pause(TWO_LOOKS);
    expect(events).toEqual([{ type: 'branch_state', fork_id: FORK, branch_id: 'branch-b', state: 'failed', failure_code: null }]);
  });

  it('drops a read this process reported a change of meanwhile, so no stale or repeated event goes out', { timeout: 20_000 }, async () => {
    const root = forkRoot();
    root.write({ 'branch-a': ['pending', LONG_AGO] });
    const events: ForkEvent[] = [];
    watch = watchOutsideChanges(root.ctx, { publish: (event) => events.push(event), drivenHere: () => [] });
    await pause(2_300);

    // This process commits branch-a running twice over, each read by the watch just before the
    // next commit and its event: every read it takes is older than what it then hears.
    let commits = 0;
    root.onRead(() => {
      if (commits >= 2) return;
      commits += 1;
      root.write({ 'branch-a': ['running', now()] });
      watch?.saw({ type: 'branch_state', fork_id: FORK, branch_id: 'branch-a', state: 'running', failure_code: null });
    });
    root.write({ 'branch-a': ['pending', now()] });
    await pause(TWO_LOOKS + 2_000);
    expect(commits).toBe(2);
    expect(events).toEqual([]);
  });
});
