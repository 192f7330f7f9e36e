import { stat } from 'node:fs/promises';
import { CitadelError } from '../../shared/errors';
import { isCitadelGitFile } from '../git/verification-tree';
import type { OrchestratorContext } from '../host/context';
import { branchRepository } from '../store/fork-layout';

/**
 * The worktree of one branch of one fork, for the desktop app to open (issue 14 item 2). The path
 * is worked out here from the ids, never taken from the renderer: only a branch the fork's record
 * names, under the fork root's worktrees folder, and only while that folder exists.
 *
 * What opens it (a terminal, a file manager) runs uncontained on the operator's machine, and an
 * operator's shell prompt runs git there: a `.git` the agent rewrote can point git at a config of
 * its own (core.fsmonitor runs a command). So a running branch, or a worktree whose `.git` is not
 * the file Citadel wrote, is refused (WORKTREE_UNTRUSTED).
 */
export async function branchWorktree(ctx: Pick<OrchestratorContext, 'store' | 'root'>, forkId: string, branchId: string): Promise<string> {
  const record = await ctx.store.readRecord(forkId);
  const branch = record.branches.find((b) => b.branch_id === branchId);
  if (branch === undefined) {
    throw new CitadelError('BRANCH_NOT_FOUND', `fork ${forkId} has no branch ${branchId}`, { details: { fork_id: forkId, branch_id: branchId } });
  }
  const details = { fork_id: forkId, branch_id: branchId };
  if (branch.state === 'pending' || branch.state === 'running') {
    throw new CitadelError('WORKTREE_UNTRUSTED', `${branchId} is still ${branch.state}: its worktree opens once the agent has finished`, { details: { ...details, reason: branch.state } });
  }
  const { worktree, gitDir } = branchRepository(ctx.root, forkId, branchId);
  const found = await stat(worktree).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!found) throw new CitadelError('WORKTREE_MISSING', `the worktree of ${branchId} is not on this machine any more (it was cleaned, or never created)`, { details });
  if (!(await isCitadelGitFile({ gitDir, workTree: worktree }))) {
    throw new CitadelError('WORKTREE_UNTRUSTED', `the worktree of ${branchId} has a .git that Citadel did not write (the agent changed it), so it is not opened: git run there could follow the agent's configuration`, {
      details: { ...details, reason: 'git_file' },
    });
  }
  return worktree;
}
