import { requireWorktreeRoot } from './repository';
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
 * Citadel, not the agent, records a branch's result: everything in the worktree is staged
 * (`git add -A`, so .gitignore is respected) and committed as Citadel, unsigned and with no hook
 * run (`gitAt`). With nothing to commit no empty commit is made.
 */
export async function commitWorktreeResult(worktree: string, message: string): Promise<WorktreeCommit> {
  const { root } = await requireWorktreeRoot(worktree);
  await runGit(root, ['add', '--all']);
  const staged = await runGit(root, ['diff', '--cached', '--quiet', '--ignore-submodules=none'], { okExitCodes: [0, 1] });
  const changed = staged.exitCode === 1;
  if (changed) await runGit(root, ['commit', '--quiet', '--message', message], { env: CITADEL_IDENTITY_ENV });
  const ids = await runGit(root, ['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}']);
  const [commit = '', tree = ''] = stdoutLine(ids).split('\n');
  return { commit, tree, changed };
}
