/** A release of a slot taken: called once the exchange is over (a second call does nothing). */
export type ReleaseSlot = () => void;

export interface InFlightSlots {
  /**
   * Resolves with a release once fewer than the limit are in flight (waiters are served in arrival
   * order), or with null if `gone` aborts first (the waiter is then forgotten).
   */
  acquire(gone: AbortSignal): Promise<ReleaseSlot | null>;
}

/** At most `limit` holders at once; null: no limit (every acquire resolves at once). */
export function inFlightSlots(limit: number | null): InFlightSlots {
  let held = 0;
  const waiting: (() => void)[] = [];
  const release = (): ReleaseSlot => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiting.shift();
      if (next === undefined) held -= 1;
      else next();
    };
  };
  return {
    acquire: (gone) => {
      if (limit === null) return Promise.resolve(() => undefined);
      if (gone.aborted) return Promise.resolve(null);
      if (held < limit) {
        held += 1;
        return Promise.resolve(release());
      }
      return new Promise((resolve) => {
        // A slot handed to a waiter passes from its releaser without `held` changing.
        const take = (): void => {
          gone.removeEventListener('abort', leave);
          resolve(release());
        };
        const leave = (): void => {
          const index = waiting.indexOf(take);
          if (index !== -1) waiting.splice(index, 1);
          resolve(null);
        };
        waiting.push(take);
        gone.addEventListener('abort', leave, { once: true });
      });
    },
  };
}
