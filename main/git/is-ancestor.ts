import { requireCommit } from './rev-parse';
import { runGit } from './run-git';

/** Whether `ancestor` is `descendant` or one of its ancestors. Both must name commits. */
export async function isAncestor(repo: string, ancestor: string, descendant: string): Promise<boolean> {
  const [from, to] = await Promise.all([requireCommit(repo, ancestor), requireCommit(repo, descendant)]);
  const run = await runGit(repo, ['merge-base', '--is-ancestor', from, to], { okExitCodes: [0, 1] });
  return run.exitCode === 0;
}
