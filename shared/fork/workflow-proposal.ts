import { z } from 'zod';
import { WorkflowFileV2Schema } from './workflow';

/** Where `citadel init` writes its workflow, and where `fork start` and New Fork look for one, relative to the repository. */
export const REPOSITORY_WORKFLOW_PATH = '.citadel/workflow.json';

/** Citadel's configuration in a repository, protected in every new contract: no agent plants the workflow later forks find. */
export const REPOSITORY_CONFIG_PROTECTED = '.citadel/**';

/**
 * Every new contract protects Citadel's own configuration in the repository (`.citadel/**`): an
 * agent whose branch plants or edits the workflow later forks find there fails POLICY_PROTECTED_PATH.
 * Added at creation only, so the contracts of existing forks, and their digests, stay as they are.
 */
export function withRepositoryConfig(protectedPaths: readonly string[]): string[] {
  return protectedPaths.includes(REPOSITORY_CONFIG_PROTECTED) ? [...protectedPaths] : [...protectedPaths, REPOSITORY_CONFIG_PROTECTED];
}

/**
 * One thing `citadel init` proposes and the file that shows it, e.g. setup `npm ci` because of
 * `package-lock.json`. A `note` proposes nothing: it is what the operator should know (another
 * test command the CI runs, a lockfile missing).
 */
export const ProposalFindingSchema = z.strictObject({
  part: z.enum(['setup', 'verifier', 'protected_paths', 'worktree_include', 'steps', 'note']),
  proposal: z.string(),
  evidence: z.string(),
});
export type ProposalFinding = z.infer<typeof ProposalFindingSchema>;

/**
 * What `citadel init` read from a repository (issue 30): the workflow it proposes, or null when it
 * found no test command (a workflow file needs a verifier), the `.worktreeinclude` lines it
 * proposes (ignored files that exist, such as `.env`), and every finding with its evidence.
 */
export const WorkflowProposalSchema = z.strictObject({
  repo: z.string(),
  workflow: WorkflowFileV2Schema.nullable(),
  worktree_include: z.array(z.string()),
  findings: z.array(ProposalFindingSchema),
});
export type WorkflowProposal = z.infer<typeof WorkflowProposalSchema>;

/**
 * `citadel init`: the proposal and, with `--write`, the absolute path of the workflow file written
 * (`path`, null when nothing was written), of the `.worktreeinclude` written (null when none was
 * proposed or one already existed), and whether an existing workflow file was replaced (`--force`).
 */
export const InitOutcomeSchema = WorkflowProposalSchema.extend({
  path: z.string().nullable(),
  worktree_include_path: z.string().nullable(),
  replaced: z.boolean(),
});
export type InitOutcome = z.infer<typeof InitOutcomeSchema>;
