import { CitadelError } from '../../shared/errors';
import { runGit, stdoutLine, type RepositoryLocation } from './run';

/** Refuses a branch name git would not accept, or one that could be read as an option. */
export async function assertBranchName(repo: string | RepositoryLocation, name: string): Promise<void> {
  const valid =
    !name.startsWith('-') &&
    (await runGit(repo, ['check-ref-format', `refs/heads/${name}`], { okExitCodes: [0, 1] })).exitCode === 0;
  if (!valid) throw new CitadelError('GIT_REF_INVALID', `"${name}" is not a valid branch name`, { details: { branch: name } });
}

/** The commit id `revision` names in `repo`, or null when it names no commit. */
export async function revParse(repo: string | RepositoryLocation, revision: string): Promise<string | null> {
  // An empty name would peel to `^{commit}`, which git reads as HEAD.
  if (revision === '') return null;
  // --end-of-options: a revision such as `--output=x` is looked up, never read as an option.
  const run = await runGit(repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`], {
    okExitCodes: [0, 1],
  });
  return run.exitCode === 0 ? stdoutLine(run) : null;
}

/** Like `revParse`, but a revision that names no commit is refused with GIT_REF_INVALID. */
export async function requireCommit(repo: string | RepositoryLocation, revision: string): Promise<string> {
  const commit = await revParse(repo, revision);
  if (commit === null) {
    throw new CitadelError('GIT_REF_INVALID', `"${revision}" does not name a commit`, { details: { revision } });
  }
  return commit;
}

/** Whether `refs/heads/<name>` exists in `repo`. */
export async function branchExists(repo: string | RepositoryLocation, name: string): Promise<boolean> {
  await assertBranchName(repo, name);
  const run = await runGit(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${name}`], { okExitCodes: [0, 1] });
  return run.exitCode === 0;
}

/**
 * Force-deletes branch `name` (merged or not), for `citadel fork clean`. Returns false when it was
 * already gone, so a retried clean succeeds. Git refuses while a worktree has it checked out.
 */
export async function deleteBranch(repo: string | RepositoryLocation, name: string): Promise<boolean> {
  if (!(await branchExists(repo, name))) return false;
  await runGit(repo, ['branch', '--delete', '--force', name]);
  return true;
}

/** Whether `ancestor` is `descendant` or one of its ancestors. Both must name commits. */
export async function isAncestor(repo: string | RepositoryLocation, ancestor: string, descendant: string): Promise<boolean> {
  const [from, to] = await Promise.all([requireCommit(repo, ancestor), requireCommit(repo, descendant)]);
  const run = await runGit(repo, ['merge-base', '--is-ancestor', from, to], { okExitCodes: [0, 1] });
  return run.exitCode === 0;
}
