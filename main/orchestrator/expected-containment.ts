import path from 'node:path';
import type { ContainmentSnapshot } from '../git/containment';

/**
 * Scopes a containment snapshot to one fork: other Citadel forks on the same repository create
 * their own worktrees and `citadel/<fork>/…` branches, which are Citadel's effects, not an agent's.
 */
export function scopeToFork(snapshot: ContainmentSnapshot, forkId: string, worktreesRoot: string): ContainmentSnapshot {
  const ownPrefix = `refs/heads/citadel/${forkId}/`;
  const isOtherForkRef = (ref: string): boolean => ref.startsWith('refs/heads/citadel/fork-') && !ref.startsWith(ownPrefix);
  const ownWorktrees = path.join(worktreesRoot, forkId) + path.sep;
  const isOtherForkWorktree = (p: string): boolean => p.startsWith(worktreesRoot + path.sep) && !p.startsWith(ownWorktrees);
  return {
    ...snapshot,
    worktrees: snapshot.worktrees.filter((w) => !isOtherForkWorktree(w.path)),
    branches: Object.fromEntries(Object.entries(snapshot.branches).filter(([ref]) => !isOtherForkRef(ref))),
  };
}

/** The expected state after Citadel itself committed a branch's result. */
export function expectResultCommit(snapshot: ContainmentSnapshot, branchId: string, commit: string): ContainmentSnapshot {
  const assigned = snapshot.assigned.find((a) => a.branch_id === branchId);
  if (!assigned) return snapshot;
  return {
    ...snapshot,
    branches: { ...snapshot.branches, [`refs/heads/${assigned.branch_name}`]: commit },
    assigned: snapshot.assigned.map((a) => (a.branch_id === branchId ? { ...a, head: commit } : a)),
  };
}
