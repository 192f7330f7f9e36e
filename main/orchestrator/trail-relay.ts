import type { ForkEvent } from '../../shared/fork/events';
import type { LiveTrail } from '../../shared/fork/live-trail';
import type { OrchestratorContext } from '../host/context';
import { attemptFiles } from '../store/fork-layout';
import { fileVersion } from './file-version';
import { readLiveTrail, trailActivityEvent, trailDiffEvent } from './live-trail';

export interface Attempt {
  readonly branchId: string;
  readonly attempt: number;
}

/** What of one attempt's live trail has been relayed: its file's version, up to which activity, which diff. */
interface Relayed {
  readonly forkId: string;
  readonly attempt: Attempt;
  readonly file: string;
  readonly seq: number;
  readonly diffAt: string | null;
}

/**
 * Relays the live trails of attempts another process runs (outside-changes.ts) as the events
 * that process streamed, each once: an attempt's first read relays only what was streamed after
 * the moment given, each later read only what the trail gained.
 */
export class TrailRelay {
  private readonly relayed = new Map<string, Relayed>();

  constructor(
    private readonly ctx: OrchestratorContext,
    private readonly publish: (event: ForkEvent) => void,
  ) {}

  /** Stops following a fork's attempts without reading them (one this process now drives: its own events carry them). */
  forget(forkId: string): void {
    for (const [id, entry] of this.relayed) if (entry.forkId === forkId) this.relayed.delete(id);
  }

  /**
   * Publishes what the attempt's trail gained; at its first read, what it holds streamed after
   * `from` (ms). A running attempt's diff too. One no longer running gets this last read (its last
   * activities are written as its runtime exits) and is then no longer followed.
   */
  async relay(forkId: string, attempt: Attempt, { running, from }: { running: boolean; from: number }): Promise<void> {
    const id = `${forkId}/${attempt.branchId}#${attempt.attempt}`;
    const before = this.relayed.get(id);
    const file = attemptFiles(this.ctx.root, forkId, attempt.branchId, attempt.attempt).liveTrail;
    const version = (await fileVersion(file))?.version ?? null;
    // No trail yet: all it will hold is news.
    if (version === null && before === undefined) this.relayed.set(id, { forkId, attempt, file: '', seq: 0, diffAt: null });
    if (version !== null && version !== before?.file) {
      // A damaged trail is read again at the next look.
      const trail = await readLiveTrail(file).catch(() => null);
      if (trail !== null) this.relayed.set(id, { forkId, attempt, file: version, ...this.relayNew(forkId, attempt, trail, before ?? firstRead(trail, from), running) });
    }
    if (!running) this.relayed.delete(id);
  }

  private relayNew(forkId: string, attempt: Attempt, trail: LiveTrail, seen: Pick<Relayed, 'seq' | 'diffAt'>, running: boolean): Pick<Relayed, 'seq' | 'diffAt'> {
    const ids = { fork_id: forkId, branch_id: attempt.branchId };
    const last = trail.activities.at(-1)?.seq ?? 0;
    // Numbered from 1 again (a resumed drive found the old trail unreadable): all of it is new.
    const after = last < seen.seq ? 0 : seen.seq;
    for (const entry of trail.activities) if (entry.seq > after) this.publish(trailActivityEvent(ids, entry));
    const { diff } = trail;
    // A diff once the runtime is done is the receipt's to tell, as the drive's own stream has it.
    if (running && diff !== null && diff.at !== seen.diffAt) this.publish(trailDiffEvent(ids, diff));
    return { seq: last, diffAt: diff?.at ?? seen.diffAt };
  }
}

/** At an attempt's first read: what it holds from before `from` counts as relayed. */
function firstRead(trail: LiveTrail, from: number): Pick<Relayed, 'seq' | 'diffAt'> {
  const earlier = trail.activities.filter((a) => Date.parse(a.at) <= from);
  return { seq: earlier.at(-1)?.seq ?? 0, diffAt: trail.diff !== null && Date.parse(trail.diff.at) <= from ? trail.diff.at : null };
}
