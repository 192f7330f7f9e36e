import { z } from 'zod';
import { DigestSchema } from '../digest';
import { BranchIdSchema, CommitShaSchema, ForkIdSchema } from './ids';
import { IsoTimeSchema } from '../iso-time';
import { AgainstEvidenceSchema } from './selection-evidence';

/**
 * The Fork page header (issue 14 item 2): what the operator needs to recognise a fork and find its
 * work on this machine. Local, private facts (the objective's title, paths, the selection reason):
 * Mission Control shows them to the operator; they never go into a replay, proof or attestation.
 * Selection and landing are shown as recorded; Replay & proof is where they are verified.
 */
export const ForkOverviewSchema = z.strictObject({
  fork_id: ForkIdSchema,
  title: z.string().nullable(),
  title_standing: z.enum(['verified', 'unverified']),
  repo_name: z.string().nullable(),
  /** The target repository's path, as the fork's request records it. */
  repo_path: z.string().nullable(),
  base_revision: CommitShaSchema,
  /** The branch checked out in the target repository now (what landing merges into); null when detached or unreadable. */
  repo_branch: z.string().nullable(),
  selection: z
    .strictObject({
      branch_id: BranchIdSchema,
      actor: z.string(),
      selected_at: IsoTimeSchema,
      /** The reason's text, when the private copy beside the record matches its digest; else null, and only the digest is known. */
      reason: z.string().nullable(),
      reason_digest: DigestSchema,
      /** The acknowledgement a selection made against the evidence carries (signed with it); null when it agreed with the evidence. */
      against_evidence: AgainstEvidenceSchema.nullable(),
    })
    .nullable(),
  landing: z
    .discriminatedUnion('status', [
      z.strictObject({
        status: z.literal('landed'),
        branch_id: BranchIdSchema,
        target_branch: z.string(),
        merge_commit: CommitShaSchema,
        landed_at: IsoTimeSchema,
        /** Whether the merge commit is, now, a merge of the recorded heads on the target branch. */
        on_target_branch: z.boolean(),
      }),
      z.strictObject({ status: z.literal('in_doubt'), branch_id: BranchIdSchema, target_branch: z.string(), blocked_at: IsoTimeSchema }),
    ])
    .nullable(),
  /** Each branch's worktree on this machine; `present: false` once it was cleaned (or never created). */
  worktrees: z.array(z.strictObject({ branch_id: BranchIdSchema, path: z.string(), present: z.boolean() })),
});
export type ForkOverview = z.infer<typeof ForkOverviewSchema>;
