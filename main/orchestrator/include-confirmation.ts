import type { Digest } from '../../shared/digest';
import { CitadelError } from '../../shared/errors';
import type { WorktreeIncludeEntry } from '../../shared/fork/contract';
import { describeIncludeList, includeListDigest, includeListOf, type IncludeConfirmation } from '../../shared/fork/include-confirmation';
import type { OrchestratorContext } from '../host/context';
import { isIncludeListConfirmed, recordIncludeConfirmation } from '../store/include-confirmations';
import { WORKTREE_INCLUDE_FILE } from '../workspace/include-refusal';

/**
 * How a start confirms the files `.worktreeinclude` copies: `current-list` (the CLI's bare
 * `--include-confirmed`: the list as it is at this start) or the digest of the list the operator
 * was shown (New Fork's preview, or a refused start's message: `--include-confirmed=DIGEST`),
 * which confirms that list only.
 */
export type IncludeConfirmed = 'current-list' | Digest;

/** The list a start would copy from `repository` (its identity digest), and whether it is confirmed; null when it names no file. */
export async function includeConfirmationOf(
  ctx: Pick<OrchestratorContext, 'root'>,
  repository: Digest,
  entries: readonly WorktreeIncludeEntry[],
): Promise<IncludeConfirmation | null> {
  if (entries.length === 0) return null;
  const digest = includeListDigest(entries.map((e) => e.path));
  return { files: includeListOf(entries), digest, confirmed: await isIncludeListConfirmed(ctx.root, repository, digest) };
}

/** A confirmation given at this start, kept once the fork is created. */
export interface NewIncludeConfirmation {
  readonly repository: Digest;
  readonly repositoryRoot: string;
  readonly digest: Digest;
}

/**
 * Refuses (WORKTREE_INCLUDE_UNCONFIRMED, before any fork state exists) a start whose list is
 * neither confirmed earlier for this repository nor by this start. Answers the confirmation this
 * start gave, to be recorded with the fork, or null when there is nothing new to record.
 */
export async function assertIncludesConfirmed(
  ctx: Pick<OrchestratorContext, 'root'>,
  repository: { readonly digest: Digest; readonly root: string },
  entries: readonly WorktreeIncludeEntry[],
  given: IncludeConfirmed | undefined,
): Promise<NewIncludeConfirmation | null> {
  const asked = await includeConfirmationOf(ctx, repository.digest, entries);
  if (asked === null || asked.confirmed) return null;
  if (given === 'current-list' || given === asked.digest) return { repository: repository.digest, repositoryRoot: repository.root, digest: asked.digest };
  const changed = given === undefined ? '' : ' The digest given is not this list\'s: the list changed since it was shown, or the digest is of another list.';
  throw new CitadelError(
    'WORKTREE_INCLUDE_UNCONFIRMED',
    `${WORKTREE_INCLUDE_FILE} in ${repository.root} copies ${asked.files.length === 1 ? 'this ignored file' : `these ${asked.files.length} ignored files`} of yours into every agent's worktree: ${describeIncludeList(asked.files)}.${changed} ` +
      `If the agents may have them, start again with --include-confirmed=${asked.digest} (exactly this list; in Mission Control, tick the list in the preview); the confirmation is kept for this repository until the list changes.`,
    { details: { repository: repository.root, files: asked.files, include_digest: asked.digest } },
  );
}

/** Keeps the confirmation a start gave (at the fork's creation, so a refused start records nothing). */
export function keepIncludeConfirmation(ctx: Pick<OrchestratorContext, 'root' | 'now'>, confirmation: NewIncludeConfirmation): Promise<void> {
  return recordIncludeConfirmation(ctx.root, {
    repository: confirmation.repository,
    repository_root: confirmation.repositoryRoot,
    include_digest: confirmation.digest,
    confirmed_at: ctx.now().toISOString(),
  });
}
