// write-file-atomic (npm's own): a reader in another process sees the old trail or the new, never a torn one.
import writeFileAtomic from 'write-file-atomic';
import type { RuntimeActivity } from '../../shared/fork/events';
import { LIVE_TRAIL_MAX_ACTIVITIES, LiveTrailSchema, type LiveTrail } from '../../shared/fork/live-trail';
import { PRIVATE_FILE_MODE } from '../store/atomic-file';
import { assertLockStillHeld } from '../store/held-lock';
import { CHECKPOINT, readStoredJson } from '../store/read-stored-json';
import type { LiveDiff } from './live-diff';

const EMPTY: LiveTrail = { schema_version: 1, diff: null, activities: [] };

/** A branch attempt's live trail, or null when none was written (or it is damaged: the live view is best effort). */
export function readLiveTrail(file: string): Promise<LiveTrail | null> {
  return readStoredJson(file, LiveTrailSchema, CHECKPOINT);
}

/**
 * Keeps one running attempt's live trail on disk as the drive streams it. Changes are applied in
 * order and written together when several came during a write; a drive that attaches to a run
 * already under way (a resume) goes on from the trail there. Not fsynced: a trail lost to a power
 * cut costs a live view, never evidence. A failed write is skipped, as a failed live tick is.
 */
export class LiveTrailWriter {
  private trail: LiveTrail | null = null;
  private readonly changes: ((trail: LiveTrail) => LiveTrail)[] = [];
  private writing: Promise<void> | null = null;

  constructor(private readonly file: string) {}

  diff(at: string, diff: LiveDiff): void {
    this.change((trail) => ({ ...trail, diff: { at, ...diff } }));
  }

  activities(entries: readonly { at: string; activity: RuntimeActivity }[]): void {
    if (entries.length === 0) return;
    this.change((trail) => {
      const last = trail.activities.at(-1)?.seq ?? 0;
      const added = entries.map(({ at, activity }, i) => ({ seq: last + i + 1, at, ...activity }));
      return { ...trail, activities: [...trail.activities, ...added].slice(-LIVE_TRAIL_MAX_ACTIVITIES) };
    });
  }

  /** Resolves once every change made so far is written (or its write failed). */
  flush(): Promise<void> {
    return this.writing ?? Promise.resolve();
  }

  private change(change: (trail: LiveTrail) => LiveTrail): void {
    this.changes.push(change);
    this.writing ??= this.drain().finally(() => (this.writing = null));
  }

  private async drain(): Promise<void> {
    this.trail ??= (await readLiveTrail(this.file).catch(() => null)) ?? EMPTY;
    while (this.changes.length > 0) {
      for (const change of this.changes.splice(0)) this.trail = change(this.trail);
      try {
        // A drive that lost its fork lock writes nothing more, live views included.
        assertLockStillHeld();
        await writeFileAtomic(this.file, `${JSON.stringify(this.trail)}\n`, { fsync: false, mode: PRIVATE_FILE_MODE });
      } catch {
        // Best effort: the next change writes the whole trail again.
      }
    }
  }
}
