import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OrchestratorContext } from '../../../main/host/context';
import { watchOutsideChanges, type OutsideChangeWatch } from '../../../main/orchestrator/outside-changes';
import type { ForkEvent } from '../../../shared/fork/events';
import type { ForkRecord } from '../../../shared/fork/fork-record';
import type { LiveTrail } from '../../../shared/fork/live-trail';
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
 * read back as written, the fork lock, and each branch's first attempt's live trail. Only the
 * fields the watch reads are written; `onRead` runs after each read.
 */
function forkRoot() {
  const root = tempDir('citadel-outside-');
  const forkDir = path.join(root, FORK);
  const file = path.join(forkDir, 'fork.json');
  mkdirSync(forkDir);
  let onRead: (() => void) | null = null;
  const branchDir = (_fork: string, branchId: string) => path.join(forkDir, 'branches', branchId);
  const store = {
    listForkIds: async () => [FORK],
    file: (_fork: string, name: string) => (name === 'record' ? file : path.join(forkDir, name === 'lock' ? 'fork.lock' : name)),
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
        branches: Object.entries(branches).map(([branch_id, [state, at]]) => ({ branch_id, state, failure_code: null, attempt: 1, history: [{ state, at }] })),
      }),
    );
  // A drive holds the lock while it runs the fork.
  const lock = () => mkdirSync(path.join(forkDir, 'fork.lock'));
  const trail = (branchId: string, value: LiveTrail) => {
    const dir = path.join(branchDir(FORK, branchId), 'attempt-1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'live-trail.json'), JSON.stringify(value));
  };
  return { ctx: { store, root: { branchDir } } as unknown as OrchestratorContext, write, lock, trail, onRead: (run: () => void) => (onRead = run) };
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

  it('relays the live trail of a branch another process runs, from when the watch began, each entry once, its last ones too', { timeout: 30_000 }, async () => {
    const root = forkRoot();
    // A fork being driven since before the watch: its record is not written again while its one branch runs.
    root.write({ 'branch-a': ['running', LONG_AGO] });
    root.lock();
    const activity = (seq: number, at: string, summary: string) => ({ seq, at, kind: 'command_started' as const, summary });
    const before = activity(1, LONG_AGO, 'running ls');
    root.trail('branch-a', { schema_version: 1, diff: { at: LONG_AGO, files_changed: 1, insertions: 1, deletions: 0 }, activities: [before] });
    const events: ForkEvent[] = [];
    watch = watchOutsideChanges(root.ctx, { publish: (event) => events.push(event), drivenHere: () => [] });
    await pause(2_300);
    // What was streamed before the watch began is not news: a view opened now reads it in the fork's timeline.
    expect(events).toEqual([]);

    const streamed = [activity(2, now(), 'running npm test'), activity(3, now(), 'turn completed')];
    // The files the trail names are relayed with the counts (issue 29); the trail before the watch names none, as one written before they were kept.
    const diff = { at: now(), files_changed: 2, insertions: 5, deletions: 1, paths: ['src/a.js', 'src/b.js'] };
    root.trail('branch-a', { schema_version: 1, diff, activities: [before, ...streamed] });
    await pause(TWO_LOOKS);
    const ids = { fork_id: FORK, branch_id: 'branch-a' };
    const relayedActivity = (entry: ReturnType<typeof activity>): ForkEvent => ({ type: 'runtime_activity', ...ids, ...entry });
    expect(events).toEqual([...streamed.map(relayedActivity), { type: 'live_diff', ...ids, files_changed: 2, insertions: 5, deletions: 1, paths: ['src/a.js', 'src/b.js'] }]);

    // The runtime exits: its last activity is written, then the record moves on, both between two
    // looks. The activity comes first, as from the drive; a diff after the exit is the receipt's.
    const last = activity(4, now(), 'turn completed · 5 input, 7 output tokens');
    root.trail('branch-a', { schema_version: 1, diff: { ...diff, at: now(), files_changed: 3 }, activities: [before, ...streamed, last] });
    root.write({ 'branch-a': ['passed', now()] });
    await pause(TWO_LOOKS);
    expect(events.slice(3)).toEqual([relayedActivity(last), { type: 'branch_state', ...ids, state: 'passed', failure_code: null }]);

    // Done: a trail written again is no longer followed, and nothing is relayed twice.
    root.trail('branch-a', { schema_version: 1, diff, activities: [before, ...streamed, last, activity(5, now(), 'late')] });
    await pause(TWO_LOOKS);
    expect(events).toHaveLength(5);
  });

  it('follows a fork another process starts driving after the watch began (a resume), and relays nothing of one this process drives', { timeout: 30_000 }, async () => {
    const root = forkRoot();
    // Left running with no drive (a terminal's drive ended; the runtime goes on), before the watch.
    root.write({ 'branch-a': ['running', LONG_AGO] });
    const events: ForkEvent[] = [];
    let drivenHere: string[] = [];
    watch = watchOutsideChanges(root.ctx, { publish: (event) => events.push(event), drivenHere: () => drivenHere });
    await pause(2_300);
    // `fork resume` in a terminal takes the lock and streams into the trail; it writes no record until the runtime exits.
    root.lock();
    const entry = { seq: 1, at: now(), kind: 'turn_started' as const, summary: 'turn started' };
    root.trail('branch-a', { schema_version: 1, diff: null, activities: [entry] });
    await pause(TWO_LOOKS);
    expect(events).toEqual([{ type: 'runtime_activity', fork_id: FORK, branch_id: 'branch-a', ...entry }]);

    // This process takes the fork over: its own drive streams, the watch relays nothing more of it.
    drivenHere = [FORK];
    const own = { seq: 2, at: now(), kind: 'command_started' as const, summary: 'running ls' };
    watch.saw({ type: 'runtime_activity', fork_id: FORK, branch_id: 'branch-a', ...own });
    root.trail('branch-a', { schema_version: 1, diff: null, activities: [entry, own] });
    await pause(TWO_LOOKS);
    expect(events).toHaveLength(1);

    // Its drive stops while the runtime goes on (another process resumes it): relayed again from
    // what this process last streamed, not from when the watch began.
    drivenHere = [];
    const later = { seq: 3, at: now(), kind: 'command_completed' as const, summary: 'ls done' };
    root.trail('branch-a', { schema_version: 1, diff: null, activities: [entry, own, later] });
    await pause(TWO_LOOKS);
    expect(events.slice(1)).toEqual([{ type: 'runtime_activity', fork_id: FORK, branch_id: 'branch-a', ...later }]);
  });
});
