import { CitadelError } from '../../shared/errors';
import { isAncestor, revParse } from '../git/refs';
import { repositoryInfo, type RepositoryInfo } from '../git/repository';
import type { Digest } from '../../shared/digest';
import { targetMismatch } from './target-identity';

/** What the target repository says now. Facts of a repository other than the recorded one are never gathered. */
export type TargetFacts =
  | { readonly usable: false; readonly reason: string }
  | {
      readonly usable: true;
      readonly info: RepositoryInfo;
      /** null when the branch no longer exists. */
      readonly selectedBranchHead: string | null;
      readonly baseRevisionPresent: boolean;
      /** null when either commit is missing. */
      readonly branchDescendsFromBase: boolean | null;
      /** Whether the base revision is in the target's HEAD (a follow-up's: its parent was landed); null when it is missing. */
      readonly baseInTarget: boolean | null;
    };

/**
 * Reads the target's state, the selected branch and the base revision. Only reads: nothing here
 * changes the target. `bound`: the target identity the contract binds (null for a fork from before).
 */
export async function targetFacts(repo: string, gitBranch: string, baseRevision: string, bound: Digest | null): Promise<TargetFacts> {
  let info: RepositoryInfo;
  try {
    info = await repositoryInfo(repo);
  } catch (error) {
    if (error instanceof CitadelError && error.code === 'REPOSITORY_INVALID') return { usable: false, reason: error.message };
    throw error;
  }
  // The recorded path is a realpath top level; a nested directory or a swapped symlink would merge into another tree.
  if (info.root !== repo) {
    return { usable: false, reason: `${repo} is no longer the top level of the recorded work tree (it resolves to ${info.root})` };
  }
  // request.json is unsigned: a repository with the same branches is still not the bound one.
  const mismatch = await targetMismatch(info.root, bound);
  if (mismatch !== null) return { usable: false, reason: `LANDING_TARGET_MISMATCH: ${mismatch}` };
  const [selectedBranchHead, base] = await Promise.all([revParse(info.root, `refs/heads/${gitBranch}`), revParse(info.root, baseRevision)]);
  const [branchDescendsFromBase, baseInTarget] = await Promise.all([
    selectedBranchHead !== null && base !== null ? isAncestor(info.root, base, selectedBranchHead) : null,
    base !== null ? isAncestor(info.root, base, info.head) : null,
  ]);
  return { usable: true, info, selectedBranchHead, baseRevisionPresent: base !== null, branchDescendsFromBase, baseInTarget };
}
