import { isCitadelError } from '../../shared/errors';
import type { ForkEvent } from '../../shared/fork/events';
import type { OrchestratorContext } from '../host/context';
import { CITADEL_RULES } from '../publish/redaction/citadel-rules';
import { describeError } from './error-reply';

const MAX_EVENT_MESSAGE = 2000;

export interface BackgroundDrives {
  /** Runs `drive` (an orchestrator call that moves the fork on) without the caller waiting for it. */
  start(forkId: string, drive: () => Promise<unknown>): void;
  /** Forks whose drive is still going. */
  running(): readonly string[];
  /** Resolves once every drive started so far has ended. */
  drained(): Promise<void>;
}

/**
 * After `startFork` returns (the fork recorded), or `resumeFork` or a retry (every branch launched),
 * the engine prepares, sets up and launches what is left, waits for the runtimes and collects their
 * evidence here, streaming events as it goes. A drive
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
          log(`fork ${forkId}: driving its branches stopped: ${describeError(error)}; citadel fork resume ${forkId} continues it`);
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

/**
 * The `drive_failed` event for a background drive that threw. Events reach every subscriber, so
 * the message is the typed error's own sentence only when the redaction rules find no local path
 * or secret-like value in it; anything else is replaced, and the full error goes to the log.
 */
function driveFailedEvent(forkId: string, error: unknown): Extract<ForkEvent, { type: 'drive_failed' }> {
  if (!isCitadelError(error)) {
    return { type: 'drive_failed', fork_id: forkId, code: 'INTERNAL_ERROR', message: 'an unexpected error stopped the drive; the Mission Control log has its details' };
  }
  const safe = error.message.length <= MAX_EVENT_MESSAGE && !CITADEL_RULES.some((rule) => rule.matches(error.message));
  return {
    type: 'drive_failed',
    fork_id: forkId,
    code: error.code,
    message: safe ? error.message : `${error.code} (the message names a local path or a secret-like value; the Mission Control log has it)`,
  };
}
