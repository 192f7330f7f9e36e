import type { LandingChecksResult } from '../../shared/fork/landing';
import { assessLanding } from './assess-landing';
import { writeIssuedPlan } from './issued-plan';
import type { LandingInput } from './landing-input';
import { landingJournalState } from './landing-journal';
import { withLockedFork } from './with-locked-fork';

/**
 * `citadel fork land ID` without `--confirm` (decisions D10): every precondition, one by one, the
 * plan, and a confirmation token when all pass. Touches nothing but the fork's own plan file.
 */
export async function landingChecks(input: LandingInput): Promise<LandingChecksResult> {
  return withLockedFork(input.ctx, input.forkId, async (journal) => {
    const result = await assessLanding(input, landingJournalState(journal), null);
    if (result.token !== null) await writeIssuedPlan(input.ctx.store, result.token, result.plan, input.ctx.now());
    return result;
  });
}
