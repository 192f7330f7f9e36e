import { z } from 'zod';
import { ForkStatusSchema, type ForkStatus } from './fork-record';
import { FORK_OUTCOME_KINDS } from './fork-triage';
import { BranchIdSchema } from './ids';
import { ParentRefSchema } from './lineage';
import { IsoTimeSchema } from '../iso-time';

/** A settled, undecided fork's outcome at a glance (shared/fork/fork-triage.ts), from its record. */
export const ForkOutcomeSchema = z.strictObject({ kind: z.enum(FORK_OUTCOME_KINDS), branch_ids: z.array(BranchIdSchema) });

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
  branches: z.array(
    ForkStatusSchema.shape.branches.element.pick({ branch_id: true, profile_id: true, state: true, failure_code: true, blocked_reason: true }).extend({
      /**
       * The code a blocked branch's cause is worded from. Code-shaped, not the error-code enum: the
       * first page's compiled parser (build/startup-parsers.ts) then does not change with every new error code.
       */
      blocked_code: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/).nullable(),
    }),
  ),
  /** When the fork last started running, from its record's history; null unless it is running. */
  running_since: IsoTimeSchema.nullable(),
  /** Issue 32: the branch this fork continues (from its verified contract); its children are the list's forks that name it. */
  parent: ParentRefSchema.nullable(),
  /** Issue 29's triage: the one rule of fork-triage.ts, and the outcome it reads (null while running or once decided). */
  needs_decision: z.boolean(),
  outcome: ForkOutcomeSchema.nullable(),
});
export type ForkSummary = z.infer<typeof ForkSummarySchema>;

/** A fork whose record could not be read: listed as unknown with its reason, never hidden. */
export const ForkProblemSchema = z.strictObject({ fork_id: z.string(), state: z.literal('unknown'), problem: z.string() });
export type ForkProblem = z.infer<typeof ForkProblemSchema>;

/** A listed fork: its `fork status`, and since when it runs (the list shows the elapsed time). */
export type ListedFork = ForkStatus & { readonly running_since: string | null };

/** Every fork as the orchestrator lists it (the CLI's list, and Mission Control's before the list's summary of it). */
export type ForkListing = ListedFork | ForkProblem;
