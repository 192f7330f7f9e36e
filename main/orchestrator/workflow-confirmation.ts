import type { Digest } from '../../shared/digest';
import { CitadelError } from '../../shared/errors';
import { describeRepositoryWorkflow, type RepositoryWorkflowSummary, type WorkflowConfirmation } from '../../shared/fork/workflow-confirmation';
import type { OrchestratorContext } from '../host/context';
import { isRepositoryWorkflowConfirmed, recordWorkflowConfirmation } from '../store/workflow-confirmations';

/**
 * How a start confirms the repository's own workflow file: `current-file` (the CLI's bare
 * `--workflow-confirmed`: the file as it is at this start) or the digest of the file the operator
 * was shown (New Fork's preview, or a refused start's message: `--workflow-confirmed=DIGEST`),
 * which confirms that file only.
 */
export type WorkflowConfirmed = 'current-file' | Digest;

/** The repository's workflow file a start would run, and whether this repository's operator confirmed it; null when no such file runs. */
export async function workflowConfirmationOf(
  ctx: Pick<OrchestratorContext, 'root'>,
  repository: Digest,
  summary: RepositoryWorkflowSummary | null,
): Promise<WorkflowConfirmation | null> {
  if (summary === null) return null;
  return { ...summary, confirmed: await isRepositoryWorkflowConfirmed(ctx.root, repository, summary.digest) };
}

/** A confirmation given at this start, kept once the fork is created. */
export interface NewWorkflowConfirmation {
  readonly repository: Digest;
  readonly repositoryRoot: string;
  readonly digest: Digest;
}

/**
 * Refuses (WORKFLOW_CONFIRMATION_REQUIRED, before any fork state exists) a start that would run the
 * repository's own workflow file when that file is neither confirmed earlier for this repository
 * nor by this start. The refusal says what the file would run. Answers the confirmation this start
 * gave, to be recorded with the fork, or null when there is nothing new to record.
 */
export async function assertWorkflowConfirmed(
  ctx: Pick<OrchestratorContext, 'root'>,
  repository: { readonly digest: Digest; readonly root: string },
  summary: RepositoryWorkflowSummary | null,
  given: WorkflowConfirmed | undefined,
): Promise<NewWorkflowConfirmation | null> {
  if (summary === null) return null;
  const asked = await workflowConfirmationOf(ctx, repository.digest, summary);
  if (asked === null || asked.confirmed) return null;
  if (given === 'current-file' || given === asked.digest) return { repository: repository.digest, repositoryRoot: repository.root, digest: asked.digest };
  const changed = given === undefined ? '' : ' The digest given is not this file\'s: the file changed since it was shown, or the digest is of another file.';
  throw new CitadelError(
    'WORKFLOW_CONFIRMATION_REQUIRED',
    `${asked.path} in ${repository.root} is the workflow this fork would use (no --workflow was named); it comes with the repository and runs its commands in every worktree: ${describeRepositoryWorkflow(asked)}.${changed} ` +
      `If it may, start again with --workflow-confirmed=${asked.digest} (exactly this file; in Mission Control, tick it in the preview), or name a workflow with --workflow; the confirmation is kept for this repository until the file changes.`,
    { details: { repository: repository.root, workflow: summary } },
  );
}

/** Keeps the confirmation a start gave (at the fork's creation, so a refused start records nothing). */
export function keepWorkflowConfirmation(ctx: Pick<OrchestratorContext, 'root' | 'now'>, confirmation: NewWorkflowConfirmation): Promise<void> {
  return recordWorkflowConfirmation(ctx.root, {
    repository: confirmation.repository,
    repository_root: confirmation.repositoryRoot,
    workflow_digest: confirmation.digest,
    confirmed_at: ctx.now().toISOString(),
  });
}
