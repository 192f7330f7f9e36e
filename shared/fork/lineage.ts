import { z } from 'zod';
import { DigestSchema } from '../digest';
import { BranchIdSchema, CommitShaSchema, ForkIdSchema } from './ids';

/**
 * Issue 32: the branch a follow-up fork continues from, frozen in its contract (so bound by its
 * digest): ids, digests and the commit the follow-up starts from. Enough for any reader to walk the
 * chain back to the first objective from the records alone, and for a recipient to check the link
 * against the parent's attestation offline.
 */
export const LineageSchema = z.strictObject({
  parent_fork_id: ForkIdSchema,
  parent_branch_id: BranchIdSchema,
  parent_contract_digest: DigestSchema,
  parent_execution_receipt_digest: DigestSchema,
  /** The parent branch's delivered result (its base revision when it committed nothing): the follow-up's base revision. */
  parent_result_commit: CommitShaSchema,
  /** The parent's objective, given to the agent as context: its digest binds the copy the follow-up keeps. */
  parent_objective_digest: DigestSchema,
  /** The key that signed the parent's receipts: a parent bundle signed by any other key is not this parent, whoever vouches for that key. */
  parent_signer_public_key_digest: DigestSchema,
  /**
   * The base revision of the chain's first fork: the last commit only the operator wrote. Every path
   * the follow-up protects must be as it was there (agents wrote everything after it).
   */
  root_base_revision: CommitShaSchema,
});
export type Lineage = z.infer<typeof LineageSchema>;

/** `FORK_ID/BRANCH_ID`, as `fork start --from` takes it. */
export const ParentRefSchema = z.strictObject({ fork_id: ForkIdSchema, branch_id: BranchIdSchema });
export type ParentRef = z.infer<typeof ParentRefSchema>;

/** Parses `FORK_ID/BRANCH_ID`; null when it is not one. */
export function parseParentRef(text: string): ParentRef | null {
  const slash = text.indexOf('/');
  if (slash < 0) return null;
  const parsed = ParentRefSchema.safeParse({ fork_id: text.slice(0, slash), branch_id: text.slice(slash + 1) });
  return parsed.success ? parsed.data : null;
}

/** Which branches a follow-up may continue: one that settled with a result, passed or failed (the engine's checks have the last word). */
export const continuable = (state: string): boolean => state === 'passed' || state === 'failed';

/** A follow-up of a fork, as the parent's status lists it: the child and the branch it continues. */
export const ChildForkSchema = z.strictObject({ fork_id: ForkIdSchema, parent_branch_id: BranchIdSchema });
export type ChildFork = z.infer<typeof ChildForkSchema>;
