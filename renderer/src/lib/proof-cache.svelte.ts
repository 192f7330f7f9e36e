import { SvelteMap } from 'svelte/reactivity';
import type { ProofProjection } from '../../../shared/publish/replay';

/**
 * Proof summaries this window has already fetched, each tied to the fork revision it was fetched
 * at. The fork list shows a verified-receipt count only where one is known for the fork's current
 * revision; it never fetches per row and never guesses.
 */
export class ProofCache {
  #entries = new SvelteMap<string, { revision: number; projection: ProofProjection }>();

  remember(revision: number, projection: ProofProjection): void {
    this.#entries.set(projection.fork_id, { revision, projection });
  }

  known(forkId: string, revision: number): ProofProjection | null {
    const entry = this.#entries.get(forkId);
    return entry !== undefined && entry.revision === revision ? entry.projection : null;
  }
}

export const proofCache = new ProofCache();
