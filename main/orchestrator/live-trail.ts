// write-file-atomic (npm's own): a reader in another process sees the old trail or the new, never a torn one.
import writeFileAtomic from 'write-file-atomic';
import type { ForkEvent, RuntimeActivity } from '../../shared/fork/events';
import { LIVE_TRAIL_MAX_ACTIVITIES, LiveTrailSchema, type LiveTrail, type LiveTrailActivity } from '../../shared/fork/live-trail';
import { PRIVATE_FILE_MODE } from '../store/atomic-file';
import { assertLockStillHeld } from '../store/held-lock';
import { CHECKPOINT, readStoredJson } from '../store/read-stored-json';
import type { LiveDiff } from './live-diff';

const EMPTY: LiveTrail = { schema_version: 1, diff: null, activities: [] };

type BranchIds = { readonly fork_id: string; readonly branch_id: string };

/** One kept activity as the event the drive streamed for it. */
export function trailActivityEvent(ids: BranchIds, { at, seq, kind, summary }: LiveTrailActivity): ForkEvent {
  return { type: 'runtime_activity', ...ids, at, seq, kind, summary };
}

/** The kept diff as the event the drive streamed for it. */
export function trailDiffEvent(ids: BranchIds, { files_changed, insertions, deletions, paths }: NonNullable<LiveTrail['diff']>): ForkEvent {
  return { type: 'live_diff', ...ids, files_changed, insertions, deletions, ...(paths === undefined ? {} : { paths }) };
}

/** A branch attempt's live trail, or null when none was written (or it is damaged: the live view is best effort). */
export function readLiveTrail(file: string): Promise<LiveTrail | null> {
  return readStoredJson(file, LiveTrailSchema, CHECKPOINT);
}

/**
 * Keeps one running attempt's live trail on disk as the drive streams it. Each change is made in
 * memory at once (numbering the activities) and written after; changes made during a write are
 * written together by the next. A drive that attaches to a run already under way (a resume) goes on
 * from the trail there. Not fsynced: a trail lost to a power cut costs a live view, never evidence.
 * A failed write is skipped, as a failed live tick is: the next writes the whole trail again.
 */
export class LiveTrailWriter {
  private trail: LiveTrail = EMPTY;
  private readonly loaded: Promise<void>;
  private dirty = false;
  private writing: Promise<void> | null = null;

  constructor(private readonly file: string) {
    this.loaded = readLiveTrail(file).then(
      (trail) => void (this.trail = trail ?? EMPTY),
      () => undefined,
    );
  }

  async diff(at: string, diff: LiveDiff): Promise<void> {
    await this.loaded;
    this.trail = { ...this.trail, diff: { at, files_changed: diff.files_changed, insertions: diff.insertions, deletions: diff.deletions, paths: [...diff.paths] } };
    this.schedule();
  }

  /** Adds the activities, numbered on from the last kept; answers them as kept. */
  async activities(entries: readonly { at: string; activity: RuntimeActivity }[]): Promise<LiveTrailActivity[]> {
    await this.loaded;
    const last = this.trail.activities.at(-1)?.seq ?? 0;
    const added = entries.map(({ at, activity }, i) => ({ seq: last + i + 1, at, kind: activity.kind, summary: activity.summary }));
    if (added.length === 0) return added;
    this.trail = { ...this.trail, activities: [...this.trail.activities, ...added].slice(-LIVE_TRAIL_MAX_ACTIVITIES) };
    this.schedule();
    return added;
  }

  /** Resolves once every change made so far is written (or its write failed). */
  flush(): Promise<void> {
    return this.writing ?? Promise.resolve();
  }

  private schedule(): void {
    this.dirty = true;
    // Begun a turn later, so `writing` is set before the drain can end and clear it.
    this.writing ??= Promise.resolve().then(() => this.drain());
  }

  private async drain(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        try {
          // A drive that lost its fork lock writes nothing more, live views included.
          assertLockStillHeld();
          await writeFileAtomic(this.file, `${JSON.stringify(this.trail)}\n`, { fsync: false, mode: PRIVATE_FILE_MODE });
        } catch {
          // Best effort: the next change writes the whole trail again.
        }
      }
    } finally {
      // In the same turn as the last check of `dirty`: a change made after it starts a new drain.
      this.writing = null;
    }
  }
}
