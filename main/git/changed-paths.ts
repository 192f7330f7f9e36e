import { PINNED_DIFF_OPTIONS } from './diff-options';
import { requireCommit } from './rev-parse';
import { runGit, stdoutFields } from './run-git';

/**
 * Every repository-relative path the change from `base` to `head` touches, sorted. Renames are not
 * paired up, so both the old and the new path appear: a protected file cannot be moved away unseen.
 */
export async function changedPaths(worktree: string, base: string, head: string): Promise<string[]> {
  const [from, to] = await Promise.all([requireCommit(worktree, base), requireCommit(worktree, head)]);
  const run = await runGit(worktree, ['diff', ...PINNED_DIFF_OPTIONS, '--no-renames', '--name-only', '-z', from, to, '--']);
  return [...new Set(stdoutFields(run))].sort();
}
