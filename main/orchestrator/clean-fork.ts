import { rm } from 'node:fs/promises';
import { removeBranchRepository } from '../git/branch-repository';
import { deleteBranch } from '../git/refs';
import { assertBoundTarget } from '../landing/target-identity';
import { branchRepository } from '../store/fork-layout';
import { withForkLock } from '../store/fork-lock';
import type { OrchestratorContext } from '../host/context';
import { ForkRequestSchema } from '../../shared/fork/fork-request';
import { releasePortBlocks } from '../workspace/port-blocks';
import { assertCleanable } from './cleanability';

export interface CleanOutcome {
  readonly fork_id: string;
  readonly branches: ReadonlyArray<{ branch_id: string; worktree_removed: boolean; branch_deleted: boolean }>;
}

/**
 * Removes a fork's branch repositories (each worktree with its git dir), the fork's base object
 * store and the delivered `citadel/<fork>/<branch>` branches, never its evidence. The fork record is not
 * rewritten (schema 1 records stay byte-identical); the journal says what was cleaned.
 */
export async function cleanFork(ctx: OrchestratorContext, forkId: string): Promise<CleanOutcome> {
  await ctx.store.readRecord(forkId);
  return withForkLock(ctx.store.forkDir(forkId), async () => {
    const record = await ctx.store.readRecord(forkId);
    assertCleanable(record);
    const { repo } = await ctx.store.readJson(forkId, 'request', ForkRequestSchema);
    // request.json is unsigned: never delete branches in a repository other than the bound one.
    await assertBoundTarget(ctx.store, record, repo);
    const journal = await ctx.store.openJournal(forkId);
    await journal.intent('fork.clean', forkId);
    const branches = [];
    for (const branch of record.branches) {
      const { worktree, gitDir } = branchRepository(ctx.root, forkId, branch.branch_id);
      const worktreeRemoved = await removeBranchRepository({ gitDir, workTree: worktree });
      const branchDeleted = await deleteBranch(repo, branch.git_branch);
      branches.push({ branch_id: branch.branch_id, worktree_removed: worktreeRemoved, branch_deleted: branchDeleted });
    }
    await rm(ctx.root.repositoriesDir(forkId), { recursive: true, force: true });
    // No branch of the fork runs any more: a port lease one left (a collection that never came) is given back.
    await releasePortBlocks(ctx.root.dir, { fork_id: forkId });
    await journal.result('fork.clean', forkId, 'done', { branches });
    return { fork_id: forkId, branches };
  });
}
