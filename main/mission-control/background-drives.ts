import type { OrchestratorContext } from '../orchestrator/context';
import { describeError } from './describe-error';
import { driveFailedEvent } from './drive-failure';

export interface BackgroundDrives {
  /** Runs `drive` (an orchestrator call that moves the fork on) without the caller waiting for it. */
  start(forkId: string, drive: () => Promise<unknown>): void;
  /** Forks whose drive is still going. */
  running(): readonly string[];
  /** Resolves once every drive started so far has ended. */
  drained(): Promise<void>;
}

/**
 * After `startFork`, `resumeFork` or a retry returns (every branch launched), the engine keeps
 * waiting for the runtimes and collects their evidence here, streaming events as it goes. A drive
 * that fails leaves its fork as recorded: it is reported to the log in full and to every shell as a
 * typed `drive_failed` event, and `citadel fork resume` continues it.
 */
export function createBackgroundDrives(ctx: OrchestratorContext, log: (line: string) => void): BackgroundDrives {
  // Keyed by the run itself: a fork may be driven again (a retry) while an earlier run ends.
  const drives = new Map<Promise<void>, string>();
  return {
    start(forkId, drive) {
      const run = drive().then(
        () => undefined,
        (error: unknown) => {
          log(`fork ${forkId}: collecting its branches stopped: ${describeError(error)}; citadel fork resume ${forkId} continues it`);
          ctx.events(driveFailedEvent(forkId, error));
        },
      );
      drives.set(run, forkId);
      void run.finally(() => drives.delete(run));
    },
    running: () => [...new Set(drives.values())],
    async drained() {
      while (drives.size > 0) await Promise.all(drives.keys());
    },
  };
}
