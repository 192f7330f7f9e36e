import type { ForkState } from '../../shared/fork/fork-record';
import { forkOutcomeNotice, type ForkOutcomeNotice } from '../../shared/fork/fork-outcome-notice';
import type { MissionControlService } from '../mission-control/service';

/**
 * Desktop notifications (Electron's Notification, shown by main so no web permission is granted to
 * the page): one when a fork becomes ready, blocked or failed. Returns the unsubscribe.
 */
export function notifyForkOutcomes(service: Pick<MissionControlService, 'subscribe'>, show: (notice: ForkOutcomeNotice) => void): () => void {
  const last = new Map<string, ForkState>();
  return service.subscribe((event) => {
    if (event.type !== 'fork_state') return;
    const notice = forkOutcomeNotice(event, last.get(event.fork_id) ?? null);
    last.set(event.fork_id, event.state);
    if (notice !== null) show(notice);
  });
}
