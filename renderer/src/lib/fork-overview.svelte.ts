import type { ForkOverview } from '../../../shared/fork/fork-overview';

/**
 * The Fork page header's facts, read once per change by ForkHeader and shared with each branch's
 * WorktreeLocation, so a fork page makes one forkOverview call rather than one per branch.
 */
class ForkOverviews {
  #current = $state.raw<ForkOverview | null>(null);

  set(overview: ForkOverview): void {
    this.#current = overview;
  }

  /** The facts of `forkId`, or null until they are read (or while another fork's are held). */
  of(forkId: string): ForkOverview | null {
    return this.#current?.fork_id === forkId ? this.#current : null;
  }
}

export const forkOverviews = new ForkOverviews();
