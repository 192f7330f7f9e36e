import { canonicalPath } from './canonical-path';
import { listWorktrees } from './list-worktrees';
import { runGit } from './run-git';

/**
 * Removes the worktree registered at `worktreePath`, untracked and modified files included, for
 * `citadel fork clean`. One whose directory is already gone is pruned. Returns false when nothing
 * was registered there, so a retried clean succeeds. Locked worktrees and the main one are refused by git.
 */
export async function removeWorktree(repo: string, worktreePath: string): Promise<boolean> {
  const target = await canonicalPath(worktreePath);
  const entry = (await listWorktrees(repo)).find((candidate) => candidate.path === target);
  if (!entry) return false;
  if (entry.prunable) await runGit(repo, ['worktree', 'prune']);
  else await runGit(repo, ['worktree', 'remove', '--force', entry.recordedPath]);
  return true;
}
