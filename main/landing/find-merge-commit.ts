import { CitadelError } from '../../shared/errors';
import { repositoryInfo } from '../git/repository';
import { runGit, stdoutLine } from '../git/run';
import type { LandingIntent } from './landing-journal';

/**
 * The merge commit a landing made, if it is on the target branch: a commit whose parents are
 * exactly [target head before, selected branch head], in that order. null when there is none, or
 * when the target, its branch or the old head is gone (then nobody can tell, and the fork blocks).
 */
export async function findMergeCommit(repo: string, intent: LandingIntent): Promise<string | null> {
  try {
    await repositoryInfo(repo);
  } catch (error) {
    if (error instanceof CitadelError && error.code === 'REPOSITORY_INVALID') return null;
    throw error;
  }
  const [before, selectedHead] = intent.expected_parents;
  // `^before` bounds the walk: the merge commit is a child of `before`, never reachable from it.
  const run = await runGit(repo, ['rev-list', '--merges', '--parents', '--end-of-options', `refs/heads/${intent.target_branch}`, `^${before}`], {
    okExitCodes: [0, 128],
  });
  if (run.exitCode !== 0) return null;
  for (const line of stdoutLine(run).split('\n')) {
    const [commit, ...parents] = line.split(' ');
    if (commit && parents.length === 2 && parents[0] === before && parents[1] === selectedHead) return commit;
  }
  return null;
}

/**
 * Whether `commit` is a merge the landing made: it exists in the target, its parents are exactly the
 * intent's [target head before, selected branch head], and it is on the target branch. A journal
 * line is stored input: a result naming any other commit proves no landing.
 */
export async function mergeCommitHolds(repo: string, intent: LandingIntent, commit: string): Promise<boolean> {
  const parents = await runGit(repo, ['rev-list', '--parents', '-n', '1', '--end-of-options', `${commit}^{commit}`], { okExitCodes: [0, 128] });
  if (parents.exitCode !== 0 || stdoutLine(parents) !== [commit, ...intent.expected_parents].join(' ')) return false;
  const onBranch = await runGit(repo, ['merge-base', '--is-ancestor', '--end-of-options', commit, `refs/heads/${intent.target_branch}`], { okExitCodes: [0, 1, 128] });
  return onBranch.exitCode === 0;
}

/** When `commit` was committed, as an ISO time: the truthful landing time, also for a merge found after a crash. */
export async function commitTime(repo: string, commit: string): Promise<string> {
  const seconds = Number(stdoutLine(await runGit(repo, ['log', '-1', '--format=%ct', '--end-of-options', commit])));
  return new Date(seconds * 1000).toISOString();
}
