import type { OrchestratorContext } from '../orchestrator/context';
import { driveFork } from '../orchestrator/drive-fork';
import { describeError } from './describe-error';

export interface BackgroundDrives {
  /** Drives the fork until every branch has ended; the caller does not wait for it. */
  start(forkId: string): void;
  /** Forks whose drive is still going. */
  running(): readonly string[];
  /** Resolves once every drive started so far has ended. */
  drained(): Promise<void>;
}

/**
 * After `startFork` returns (every branch launched), the engine keeps waiting for the runtimes and
 * collects their evidence here, streaming events as it goes. A drive that fails is reported to the
 * log: its fork stays as recorded, and `citadel fork resume` continues it.
 */
export function createBackgroundDrives(ctx: OrchestratorContext, log: (line: string) => void): BackgroundDrives {
  const drives = new Map<string, Promise<void>>();
  return {
    start(forkId) {
      const drive = driveFork(ctx, forkId, 'all').then(
        () => undefined,
        (error: unknown) => log(`fork ${forkId}: collecting its branches stopped: ${describeError(error)}; citadel fork resume ${forkId} continues it`),
      );
      drives.set(forkId, drive);
      void drive.finally(() => drives.delete(forkId));
    },
    running: () => [...drives.keys()],
    async drained() {
      while (drives.size > 0) await Promise.all(drives.values());
    },
  };
}
