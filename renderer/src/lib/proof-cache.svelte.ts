import { SvelteMap } from 'svelte/reactivity';
import type { ProofProjection } from '../../../shared/publish/replay';

/** What the fork list shows of a proof summary: its verified receipts against its branches. */
export type ReceiptCount = Pick<ProofProjection, 'verified_receipts' | 'branches'>;

interface Entry extends ReceiptCount {
  readonly revision: number;
}

/** Versioned, so counts kept in another shape are never read as this one. */
export const PROOF_CACHE_KEY = 'citadel.receipt-counts.v1';

/**
 * Verified-receipt counts from the proof summaries this tab has already fetched, each tied to the
 * fork revision it was fetched at. The fork list shows a count only where one is known for the
 * fork's current revision; it never fetches per row and never guesses. They are kept in the tab's
 * session storage too: held only in memory, a reload forgot every one and every row said "unknown".
 */
export class ProofCache {
  readonly #entries: SvelteMap<string, Entry>;
  readonly #storage: Storage | null;

  constructor(storage: Storage | null) {
    this.#storage = storage;
    this.#entries = new SvelteMap(storedEntries(storage));
  }

  remember(revision: number, projection: ProofProjection): void {
    this.#entries.set(projection.fork_id, { revision, verified_receipts: projection.verified_receipts, branches: projection.branches });
    try {
      this.#storage?.setItem(PROOF_CACHE_KEY, JSON.stringify([...this.#entries]));
    } catch {
      // A full or refused storage only means a reload forgets; this tab still knows.
    }
  }

  known(forkId: string, revision: number): ReceiptCount | null {
    const entry = this.#entries.get(forkId);
    return entry !== undefined && entry.revision === revision ? entry : null;
  }
}

/** What an earlier page of this tab kept; anything not in the shape this file writes is dropped. */
function storedEntries(storage: Storage | null): [string, Entry][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(storage?.getItem(PROOF_CACHE_KEY) ?? '[]');
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? parsed.filter(isEntry) : [];
}

function isEntry(value: unknown): value is [string, Entry] {
  if (!Array.isArray(value) || value.length !== 2) return false;
  const [forkId, entry] = value as [unknown, unknown];
  if (typeof forkId !== 'string' || typeof entry !== 'object' || entry === null) return false;
  const { revision, verified_receipts, branches } = entry as Record<string, unknown>;
  return Number.isInteger(revision) && Number.isInteger(verified_receipts) && Number.isInteger(branches);
}

/** Session storage can be refused (a sandboxed or opaque origin): then the counts are this tab's memory only. */
function sessionStorageOrNull(): Storage | null {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null;
  }
}

export const proofCache = new ProofCache(sessionStorageOrNull());
