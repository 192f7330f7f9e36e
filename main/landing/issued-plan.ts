import { IssuedPlanSchema, type IssuedPlan, type LandingPlan } from '../../shared/fork/landing';
import { writeJsonDurably } from '../store/atomic-file';
import type { ForkStore } from '../store/fork-store';
import { readJsonIfValid } from '../store/read-json-if-valid';
import { landingFiles } from './landing-files';

/** Remembers the plan a token was issued for, so `--confirm` can say which fact moved, not only that the token differs. */
export async function writeIssuedPlan(store: ForkStore, token: string, plan: LandingPlan, at: Date): Promise<void> {
  const issued: IssuedPlan = { token, issued_at: at.toISOString(), plan };
  await writeJsonDurably(landingFiles(store, plan.fork_id).plan, IssuedPlanSchema.parse(issued), { mode: 0o600 });
}

/** The last issued plan; a missing or unreadable one counts as never issued, which `--confirm` refuses. */
export async function readIssuedPlan(store: ForkStore, forkId: string): Promise<IssuedPlan | null> {
  return readJsonIfValid(landingFiles(store, forkId).plan, IssuedPlanSchema);
}
