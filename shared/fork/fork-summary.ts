import { z } from 'zod';
import { ForkStatusSchema, type ForkStatus } from './fork-record';

/**
 * What Mission Control's fork list carries of each fork: what a row shows and what keeps it current
 * (state and revision), without the digests and commits only the fork's own page needs. A thousand
 * of these are read, sent and checked at once (issue 14's first-render bench), so each is lean.
 */
export const ForkSummarySchema = ForkStatusSchema.pick({
  fork_id: true,
  demo: true,
  state: true,
  revision: true,
  created_at: true,
  title: true,
  title_standing: true,
  repo_name: true,
}).extend({
  branches: z.array(ForkStatusSchema.shape.branches.element.pick({ branch_id: true, profile_id: true, state: true, failure_code: true, blocked_reason: true })),
});
export type ForkSummary = z.infer<typeof ForkSummarySchema>;

/** A fork whose record could not be read: listed as unknown with its reason, never hidden. */
export const ForkProblemSchema = z.strictObject({ fork_id: z.string(), state: z.literal('unknown'), problem: z.string() });
export type ForkProblem = z.infer<typeof ForkProblemSchema>;

/** Every fork as `fork status` shows it (the orchestrator's and the CLI's list), before the list's summary of it. */
export type ForkListing = ForkStatus | ForkProblem;
