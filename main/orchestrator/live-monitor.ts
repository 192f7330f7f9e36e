import type { WorktreeIncludeEntry } from '../../shared/fork/contract';
import type { ForkEventSink, RuntimeActivity } from '../../shared/fork/events';
import type { RepositoryLocation } from '../git/run';
import { liveDiff, liveGitDir, type LiveDiff, type LiveGitDir } from './live-diff';
import { LogFollower } from './live-output';
import { streamableActivities } from './live-redaction';
import { LiveTrailWriter } from './live-trail';

const LIVE_DIFF_MS = 2_000;
const LIVE_OUTPUT_MS = 500;
// A diff's git processes are killed past this: a tick never outlives a few of its successors.
const DIFF_TIMEOUT_MS = 10_000;
// Per tick, the newest activities: a runtime that prints hundreds of events at once does not flood the stream.
const MAX_ACTIVITIES_PER_TICK = 20;

export interface LiveRun {
  readonly forkId: string;
  readonly branchId: string;
  readonly repository: RepositoryLocation & { readonly workTree: string };
  readonly base: string;
  /** The contract's `.worktreeinclude` files: the operator's copies, not counted in the diff. */
  readonly includes: readonly WorktreeIncludeEntry[];
  readonly stdoutFile: string;
  /** Where what is streamed is kept (live-trail.ts): for another process to relay, and a view opened later to show. */
  readonly trailFile: string;
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
 * runtime's stdout lines as its adapter reads them, each also kept in the attempt's live trail. A
 * tick still running skips the next; a failing one is skipped: the live view is best effort and
 * never changes the run or its evidence.
 */
export function startLiveMonitor(run: LiveRun): LiveMonitor {
  let last: LiveDiff | null = null;
  let stopped = false;
  let diffing: Promise<void> | null = null;
  let following: Promise<void> | null = null;
  const stopping = new AbortController();
  const follower = run.activity === undefined ? null : new LogFollower(run.stdoutFile);
  const trail = new LiveTrailWriter(run.trailFile);

  // Made at the first tick, removed on stop: the diff's own git dir (liveGitDir), so no config of the agent's is read.
  let live: Promise<LiveGitDir> | null = null;
  const pollDiff = (): void => {
    if (diffing !== null) return;
    const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(DIFF_TIMEOUT_MS)]);
    live ??= liveGitDir(run.repository.gitDir, run.includes);
    diffing = live
      .then((dir) => liveDiff(run.repository, dir, run.base, signal))
      .then(async (diff) => {
        // One that ends after the runtime's exit is not streamed: the receipt's diff takes over.
        if (stopped || (last !== null && sameDiff(diff, last))) return;
        last = diff;
        await trail.diff(new Date().toISOString(), diff);
        run.events({ type: 'live_diff', fork_id: run.forkId, branch_id: run.branchId, ...diff, paths: [...diff.paths] });
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
        const at = new Date().toISOString();
        const streamed = (await streamableActivities(activities.slice(-MAX_ACTIVITIES_PER_TICK))).map((activity) => ({ at, activity }));
        // Each streamed as the trail numbers it: whoever shows it from both the trail and the stream knows it is one.
        for (const kept of await trail.activities(streamed)) run.events({ type: 'runtime_activity', fork_id: run.forkId, branch_id: run.branchId, ...kept });
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
      stopping.abort();
      await Promise.all([diffing, following]);
      await live?.then((dir) => dir.dispose(), () => undefined);
      // What the runtime printed last (its final turn) is streamed before the drive reports the exit;
      // the log is capped by the supervisor, so this ends.
      do await pollOutput();
      while (follower !== null && !follower.caughtUp);
      await trail.flush();
    },
  };
}

function sameDiff(a: LiveDiff, b: LiveDiff): boolean {
  return a.files_changed === b.files_changed && a.insertions === b.insertions && a.deletions === b.deletions && a.paths.join('\0') === b.paths.join('\0');
}
