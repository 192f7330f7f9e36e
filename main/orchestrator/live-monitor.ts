import type { WorktreeIncludeEntry } from '../../shared/fork/contract';
import type { ForkEventSink, PastForkEvent, RuntimeActivity } from '../../shared/fork/events';
import type { RepositoryLocation } from '../git/run';
import { liveDiff, liveGitDir, type LiveDiff, type LiveGitDir } from './live-diff';
import { LogFollower } from './live-output';
import { streamableActivities } from './live-redaction';

const LIVE_DIFF_MS = 2_000;
const LIVE_OUTPUT_MS = 500;
// A diff's git processes are killed past this: a tick never outlives a few of its successors.
const DIFF_TIMEOUT_MS = 10_000;
// Per tick, the newest activities: a runtime that prints hundreds of events at once does not flood the stream.
const MAX_ACTIVITIES_PER_TICK = 20;

// Each running branch's latest live diff, for a view opened mid-run (forkTimeline): a diff is
// streamed only when it changes, so one that opens later would otherwise wait for the next change.
const latestDiffs = new Map<string, PastForkEvent>();
// And its latest activities, as streamed (redacted, with when): the runtime's log holds no times,
// and a view opened mid-run would otherwise start with none of what the runtime has done so far.
const recentActivities = new Map<string, PastForkEvent[]>();
// As many as a shell's timeline keeps per branch (renderer/src/lib/timeline.svelte.ts).
const MAX_RECENT_ACTIVITIES = 200;

export interface LiveRun {
  readonly forkId: string;
  readonly branchId: string;
  readonly repository: RepositoryLocation & { readonly workTree: string };
  readonly base: string;
  /** The contract's `.worktreeinclude` files: the operator's copies, not counted in the diff. */
  readonly includes: readonly WorktreeIncludeEntry[];
  readonly stdoutFile: string;
  /**
   * `start` for a run this process launched; `end` when it attaches to one already under way (a
   * resume, a restart): what the log held before was streamed by then, or is past, and is not news.
   */
  readonly readLogFrom: 'start' | 'end';
  /** The runtime adapter's reading of one stdout line; absent when its output comes at exit. */
  readonly activity: ((line: string) => RuntimeActivity | null) | undefined;
  readonly events: ForkEventSink;
}

export interface LiveMonitor {
  /** Stops polling and ends a diff under way; resolves once the last of the log is read and streamed (the runtime has exited). */
  stop(): Promise<void>;
}

/**
 * What the Fork view shows while a runtime works (issue 14), polled by the drive, never by a shell:
 * the worktree's diff against the base every LIVE_DIFF_MS (streamed when it changes), and the
 * runtime's stdout lines as its adapter reads them. A tick still running skips the next; a failing
 * one is skipped: the live view is best effort and never changes the run or its evidence.
 */
export function startLiveMonitor(run: LiveRun): LiveMonitor {
  let last: LiveDiff | null = null;
  let stopped = false;
  let diffing: Promise<void> | null = null;
  let following: Promise<void> | null = null;
  const stopping = new AbortController();
  const key = `${run.forkId}/${run.branchId}`;
  const follower = run.activity === undefined ? null : new LogFollower(run.stdoutFile);
  // This monitor's own entries in the shared maps: a monitor of an earlier attempt that stops late
  // removes only its own, never the next attempt's.
  let latestDiff: PastForkEvent | null = null;
  const activitiesSoFar: PastForkEvent[] = [];
  recentActivities.set(key, activitiesSoFar);

  // Made at the first tick, removed on stop: the diff's own git dir (liveGitDir), so no config of the agent's is read.
  let live: Promise<LiveGitDir> | null = null;
  const pollDiff = (): void => {
    if (diffing !== null) return;
    const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(DIFF_TIMEOUT_MS)]);
    live ??= liveGitDir(run.repository.gitDir, run.includes);
    diffing = live
      .then((dir) => liveDiff(run.repository, dir, run.base, signal))
      .then((diff) => {
        // One that ends after the runtime's exit is not streamed: the receipt's diff takes over.
        if (stopped || (last !== null && sameDiff(diff, last))) return;
        last = diff;
        const event = { type: 'live_diff' as const, fork_id: run.forkId, branch_id: run.branchId, ...diff };
        latestDiff = { at: new Date().toISOString(), event };
        latestDiffs.set(key, latestDiff);
        run.events(event);
      })
      .catch(() => undefined)
      .finally(() => (diffing = null));
  };

  const pollOutput = (): Promise<void> => {
    if (follower === null || run.activity === undefined) return Promise.resolve();
    const read = run.activity;
    following ??= follower
      .read()
      .then(async (lines) => {
        const activities = lines.map((line) => read(line)).filter((activity) => activity !== null);
        for (const activity of await streamableActivities(activities.slice(-MAX_ACTIVITIES_PER_TICK))) {
          const event = { type: 'runtime_activity' as const, fork_id: run.forkId, branch_id: run.branchId, ...activity };
          if (!stopped) remember(activitiesSoFar, { at: new Date().toISOString(), event });
          run.events(event);
        }
      })
      .catch(() => undefined)
      .finally(() => (following = null));
    return following;
  };

  if (follower !== null && run.readLogFrom === 'end') following = follower.skipToEnd().finally(() => (following = null));
  // No tick at once: a runtime just launched has changed nothing yet (and a short run then costs no git at all).
  const diffTimer = setInterval(pollDiff, LIVE_DIFF_MS);
  const outputTimer = follower === null ? null : setInterval(() => void pollOutput(), LIVE_OUTPUT_MS);
  return {
    async stop() {
      stopped = true;
      clearInterval(diffTimer);
      if (outputTimer !== null) clearInterval(outputTimer);
      if (latestDiffs.get(key) === latestDiff) latestDiffs.delete(key);
      if (recentActivities.get(key) === activitiesSoFar) recentActivities.delete(key);
      stopping.abort();
      await Promise.all([diffing, following]);
      await live?.then((dir) => dir.dispose(), () => undefined);
      // What the runtime printed last (its final turn) is streamed before the drive reports the exit;
      // the log is capped by the supervisor, so this ends.
      do await pollOutput();
      while (follower !== null && !follower.caughtUp);
    },
  };
}

/** The latest live diff of each of a fork's branches whose runtime this process is watching. */
export function latestLiveDiffs(forkId: string): PastForkEvent[] {
  return [...latestDiffs.values()].filter(({ event }) => event.fork_id === forkId);
}

/** The latest activities of each of a fork's branches whose runtime this process is watching, oldest first. */
export function recentLiveActivities(forkId: string): PastForkEvent[] {
  return [...recentActivities.values()].flat().filter(({ event }) => event.fork_id === forkId);
}

function remember(kept: PastForkEvent[], entry: PastForkEvent): void {
  kept.push(entry);
  if (kept.length > MAX_RECENT_ACTIVITIES) kept.splice(0, kept.length - MAX_RECENT_ACTIVITIES);
}

function sameDiff(a: LiveDiff, b: LiveDiff): boolean {
  return a.files_changed === b.files_changed && a.insertions === b.insertions && a.deletions === b.deletions;
}
