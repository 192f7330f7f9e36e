import { branchExists } from './branch-exists';
import { runGit } from './run-git';

/**
 * Force-deletes branch `name` (merged or not), for `citadel fork clean`. Returns false when it was
 * already gone, so a retried clean succeeds. Git refuses while a worktree has it checked out.
 */
export async function deleteBranch(repo: string, name: string): Promise<boolean> {
  if (!(await branchExists(repo, name))) return false;
  await runGit(repo, ['branch', '--delete', '--force', name]);
  return true;
}
