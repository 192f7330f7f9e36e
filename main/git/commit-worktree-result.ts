import { CITADEL_IDENTITY_ENV } from './citadel-identity';
import { runGit, stdoutLine } from './run-git';
import { requireWorktreeRoot } from './worktree-root';

export interface WorktreeCommit {
  readonly commit: string;
  readonly tree: string;
  /** false when there was nothing to commit: `commit` is then the unchanged HEAD. */
  readonly changed: boolean;
}

/**
 * Citadel, not the agent, records a branch's result: everything in the worktree is staged
 * (`git add -A`, so .gitignore is respected) and committed as Citadel, unsigned and with no hook
 * run (git-at.ts). With nothing to commit no empty commit is made.
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
