import { assertBranchName } from './branch-name';
import { runGit } from './run-git';

/** Whether `refs/heads/<name>` exists in `repo`. */
export async function branchExists(repo: string, name: string): Promise<boolean> {
  await assertBranchName(repo, name);
  const run = await runGit(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${name}`], { okExitCodes: [0, 1] });
  return run.exitCode === 0;
}
