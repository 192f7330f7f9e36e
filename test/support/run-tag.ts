import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** This test run's tag (global-setup.ts): what a test leaves on the host on purpose carries it. */
    citadelTestRun: string;
  }
}

/**
 * A tag no earlier or concurrent run shares: the global teardown looks only for it, so another run's
 * leftovers (or an operator's own processes) never fail this one.
 */
export function newRunTag(): string {
  return `citadel-run-${randomBytes(4).toString('hex')}`;
}

/** The tag of the run this test file is part of. */
export function runTag(): string {
  return inject('citadelTestRun');
}
