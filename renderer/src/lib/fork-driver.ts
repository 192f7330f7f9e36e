import type { ForkDriver } from '../../../shared/fork/resumability';
import type { Reply } from '../../../shared/ipc/contract';
import { formatTime } from './format';

/** Who drives a fork, in words; the same sentence on the Fork page and before a Select or Land form. */
export function drivenBy(driver: ForkDriver): string {
  if (driver.by === 'this_process') return 'Mission Control is driving this fork: its progress streams here.';
  const since = driver.since === null ? '' : ` since ${formatTime(driver.since)}`;
  const pid = driver.pid === null ? '' : ` (a Citadel process, pid ${driver.pid})`;
  return `Being driven by another process${since}${pid}: its progress streams here, and changes to the fork (select, land, retry, clean) wait until it finishes.`;
}

/** The other process holding the fork now, or null (none, this Mission Control, or unknown). */
export function drivenElsewhere(resumability: Reply<'resumability'> | null): ForkDriver | null {
  if (resumability?.ok !== true || resumability.value.reason !== 'in_progress') return null;
  const driver = resumability.value.driver;
  return driver.by === 'another_process' ? driver : null;
}
