import { IssuedPlanSchema, type IssuedPlan, type LandingPlan } from '../../shared/fork/landing';
import { writePrivateJson } from '../store/atomic-file';
import type { ForkStore } from '../store/fork-store';
import { CHECKPOINT, readStoredJson } from '../store/read-stored-json';

/** Remembers the plan a token was issued for, so `--confirm` can say which fact moved, not only that the token differs. */
export async function writeIssuedPlan(store: ForkStore, token: string, plan: LandingPlan, at: Date): Promise<void> {
  const issued: IssuedPlan = { token, issued_at: at.toISOString(), plan };
  await writePrivateJson(store.file(plan.fork_id, 'landingPlan'), IssuedPlanSchema.parse(issued));
}

/** The last issued plan; a missing or unreadable one counts as never issued, which `--confirm` refuses. */
export async function readIssuedPlan(store: ForkStore, forkId: string): Promise<IssuedPlan | null> {
  return readStoredJson(store.file(forkId, 'landingPlan'), IssuedPlanSchema, CHECKPOINT);
}
