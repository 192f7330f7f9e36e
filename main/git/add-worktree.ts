import path from 'node:path';
import { assertBranchName } from './branch-name';
import { canonicalPath } from './canonical-path';
import { requireCommit } from './rev-parse';
import { runGit } from './run-git';

export interface AddedWorktree {
  /** realpath of the new worktree. */
  readonly path: string;
  /** The commit its new branch starts at. */
  readonly head: string;
}

/** `git worktree add -b <branch> <path> <base>`: a new branch at `baseRevision`, checked out at `worktreePath`. */
export async function addWorktree(
  repo: string,
  worktreePath: string,
  branchName: string,
  baseRevision: string,
): Promise<AddedWorktree> {
  await assertBranchName(repo, branchName);
  const base = await requireCommit(repo, baseRevision);
  // Absolute, so the path can never be read as an option and does not depend on git's cwd.
  const target = path.resolve(worktreePath);
  await runGit(repo, ['worktree', 'add', '--no-track', '-b', branchName, target, base]);
  return { path: await canonicalPath(target), head: base };
}
