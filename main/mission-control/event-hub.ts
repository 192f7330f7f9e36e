import type { ForkEvent } from '../../shared/fork/events';

export interface EventHub {
  publish(event: ForkEvent): void;
  subscribe(listener: (event: ForkEvent) => void): () => void;
  /** How many listeners are subscribed (one that threw is no longer). */
  size(): number;
}

/**
 * Fans the orchestrator's events out to every shell. `publish` runs inside the engine's own
 * transitions, so a listener that throws is cut off rather than allowed to break the fork.
 */
export function createEventHub(onListenerError: (error: unknown) => void): EventHub {
  const listeners = new Set<(event: ForkEvent) => void>();
  return {
    publish(event) {
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch (error) {
          listeners.delete(listener);
          onListenerError(error);
        }
      }
    },
    subscribe(listener) {
      // A wrapper per subscription: subscribing the same function twice gives two independent handles.
      const entry = (event: ForkEvent) => listener(event);
      listeners.add(entry);
      return () => void listeners.delete(entry);
    },
    size: () => listeners.size,
  };
}
