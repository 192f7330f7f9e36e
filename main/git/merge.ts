import { CitadelError } from '../../shared/errors';
import { CITADEL_IDENTITY_ENV } from './commit';
import { assertBranchName, isAncestor, revParse } from './refs';
import { requireWorktreeRoot } from './repository';
import { GitError, runGit, stdoutFields, stdoutLine } from './run';

/**
 * Lands `branch` into the checked-out branch of `repo` with a local `git merge --no-ff` committed as
 * Citadel, and returns the merge commit. The work tree must be clean, so that on a conflict
 * `git merge --abort` restores exactly the state before (MERGE_CONFLICT names the paths). Never pushes.
 */
export async function mergeNoFf(repo: string, branch: string, message: string): Promise<string> {
  const target = await requireWorktreeRoot(repo);
  if (target.dirty) {
    throw new CitadelError('REPOSITORY_DIRTY', `${target.root} has uncommitted changes`, { details: { path: target.root } });
  }
  await assertBranchName(target.root, branch);
  const ref = `refs/heads/${branch}`;
  const branchHead = await revParse(target.root, ref);
  if (branchHead === null) throw new CitadelError('GIT_REF_INVALID', `branch ${branch} does not exist`, { details: { branch } });
  if (await isAncestor(target.root, branchHead, target.head)) {
    throw new CitadelError('MERGE_UP_TO_DATE', `branch ${branch} is already contained in ${target.root}`, {
      details: { branch, branch_head: branchHead, target_head: target.head },
    });
  }

  const args = ['merge', '--no-ff', '--no-edit', '--no-log', '--no-stat', '--no-squash', '--no-verify-signatures', '--message', message, ref];
  const merge = await runGit(target.root, args, { env: CITADEL_IDENTITY_ENV, okExitCodes: [0, 1] });
  if (merge.exitCode === 0) return stdoutLine(await runGit(target.root, ['rev-parse', '--verify', 'HEAD^{commit}']));

  const inProgress = (await runGit(target.root, ['rev-parse', '--verify', '--quiet', 'MERGE_HEAD'], { okExitCodes: [0, 1] })).exitCode === 0;
  if (!inProgress) {
    const outcome = { args, exitCode: merge.exitCode, stdout: merge.stdout.toString('utf8'), stderr: merge.stderr };
    throw new GitError(outcome, 'the merge stopped without a conflict to resolve');
  }
  const conflicted = stdoutFields(await runGit(target.root, ['diff', '--name-only', '-z', '--diff-filter=U']));
  await runGit(target.root, ['merge', '--abort']);
  throw new CitadelError('MERGE_CONFLICT', `merging ${branch} conflicts in ${conflicted.length} file(s); the merge was aborted`, {
    details: { branch, conflicted_paths: conflicted },
  });
}
