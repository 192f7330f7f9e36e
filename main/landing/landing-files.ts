import path from 'node:path';
import type { ForkStore } from '../store/fork-store';

/** Landing's private files in `<root>/forks/<fork_id>/`. */
export function landingFiles(store: ForkStore, forkId: string): { record: string; plan: string } {
  const dir = store.forkDir(forkId);
  return { record: path.join(dir, 'landing.json'), plan: path.join(dir, 'landing-plan.json') };
}
