import type { BranchRepository } from './branch-repository';
import { runGit, stdoutLine } from './run';

/**
 * Author and committer of every commit Citadel makes (worktree results, landing merges). Set through
 * the environment, which outranks any `user.*` config, so the operator's identity never leaks in.
 */
export const CITADEL_IDENTITY_ENV: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: 'Citadel',
  GIT_AUTHOR_EMAIL: 'citadel@localhost',
  GIT_COMMITTER_NAME: 'Citadel',
  GIT_COMMITTER_EMAIL: 'citadel@localhost',
};

export interface WorktreeCommit {
  readonly commit: string;
  readonly tree: string;
  /** false when there was nothing to commit: `commit` is then the unchanged HEAD. */
  readonly changed: boolean;
}

/**
 * Citadel, not the agent, records a branch's result in the branch's own repository: everything in
 * the work tree is staged (`git add -A`, so .gitignore is respected) and committed as Citadel,
 * unsigned and with no hook run (`gitAt`), with the git dir and work tree named from Citadel's
 * record (run.ts RepositoryLocation). With nothing to commit no empty commit is made.
 */
export async function commitBranchResult(repo: BranchRepository, message: string): Promise<WorktreeCommit> {
  await runGit(repo, ['add', '--all']);
  const staged = await runGit(repo, ['diff', '--cached', '--quiet', '--ignore-submodules=none'], { okExitCodes: [0, 1] });
  const changed = staged.exitCode === 1;
  if (changed) await runGit(repo, ['commit', '--quiet', '--no-verify', '--message', message], { env: CITADEL_IDENTITY_ENV });
  const ids = await runGit(repo, ['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}']);
  const [commit = '', tree = ''] = stdoutLine(ids).split('\n');
  return { commit, tree, changed };
}
