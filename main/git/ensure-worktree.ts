import { CitadelError } from '../../shared/errors';
import { addWorktree } from './add-worktree';
import { assertBranchName } from './branch-name';
import { canonicalPath } from './canonical-path';
import { isAncestor } from './is-ancestor';
import { listWorktrees } from './list-worktrees';
import { requireCommit, revParse } from './rev-parse';

export interface EnsuredWorktree {
  readonly path: string;
  /** The branch's commit: the base when just created, possibly later when it already existed. */
  readonly head: string;
  /** false when the worktree was already there exactly as requested. */
  readonly created: boolean;
}

/**
 * `addWorktree` as a repeatable effect: retried on resume, it accepts the worktree it made before
 * (same path registered, on the same branch, the branch at the base or beyond) and refuses with
 * WORKTREE_CONFLICT when anything else holds the path or the branch.
 */
export async function ensureWorktree(
  repo: string,
  worktreePath: string,
  branchName: string,
  baseRevision: string,
): Promise<EnsuredWorktree> {
  await assertBranchName(repo, branchName);
  const base = await requireCommit(repo, baseRevision);
  const target = await canonicalPath(worktreePath);
  const ref = `refs/heads/${branchName}`;
  const worktrees = await listWorktrees(repo);
  const atPath = worktrees.find((entry) => entry.path === target);
  const onBranch = worktrees.find((entry) => entry.branch === ref);
  const branchHead = await revParse(repo, ref);

  if (!atPath && branchHead === null) {
    return { ...(await addWorktree(repo, target, branchName, base)), created: true };
  }
  const conflict = (reason: string): CitadelError =>
    new CitadelError('WORKTREE_CONFLICT', `cannot create worktree ${target} on ${branchName}: ${reason}`, {
      details: { path: target, branch: branchName, reason, registered_branch: atPath?.branch ?? null, branch_head: branchHead },
    });
  if (!atPath) throw conflict(onBranch ? `the branch is checked out at ${onBranch.path}` : 'the branch already exists');
  if (atPath.branch !== ref) throw conflict('another worktree is registered at that path');
  if (atPath.prunable) throw conflict('the registered worktree directory is missing');
  if (branchHead === null || !(await isAncestor(repo, base, branchHead))) throw conflict('the branch does not descend from the base');
  return { path: target, head: branchHead, created: false };
}
