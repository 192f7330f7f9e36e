import type { LandingChecksResult, LandingResult } from '../../shared/fork/landing';
import type { OrchestratorContext } from '../host/context';
import { land } from '../landing/land';
import { landingChecks as checkLanding } from '../landing/landing-checks';
import { landingInputFor } from './land-fork';

/** `citadel fork land ID`: every precondition against a fresh re-verification, and a token when all pass. */
export async function landingChecks(ctx: OrchestratorContext, forkId: string): Promise<LandingChecksResult> {
  return checkLanding(await landingInputFor(ctx, forkId));
}

/** `citadel fork land ID --confirm TOKEN`: re-checks everything, then merges locally. */
export async function confirmLanding(ctx: OrchestratorContext, forkId: string, token: string): Promise<LandingResult> {
  return land(await landingInputFor(ctx, forkId), token);
}
