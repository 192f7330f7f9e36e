import { CitadelError } from '../../shared/errors';
import { branchExists } from '../git/refs';

/**
 * Each branch's result is delivered to `citadel/<fork>/<branch>` in the operator's repository at
 * collection. Git keeps refs as paths, so an existing branch named by a leading part of that name
 * (`citadel`, `citadel/<fork>`) makes it impossible to create.
 */

/** Before any fork state exists: no leading part of any result branch, nor the branch itself, may exist. */
export async function assertDeliveryNamespaceFree(repo: string, branchNames: readonly string[]): Promise<void> {
  await refuseExisting(repo, [...new Set(branchNames.flatMap(leadingParts)), ...branchNames]);
}

/** At delivery (the branch itself may already be there from an interrupted delivery): no leading part may exist. */
export async function assertResultBranchCreatable(repo: string, branchName: string): Promise<void> {
  await refuseExisting(repo, leadingParts(branchName));
}

/** `citadel/F/B` → `citadel`, `citadel/F`. */
function leadingParts(name: string): string[] {
  const parts = name.split('/');
  return parts.slice(1).map((_, index) => parts.slice(0, index + 1).join('/'));
}

async function refuseExisting(repo: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    if (!(await branchExists(repo, name))) continue;
    const ref = `refs/heads/${name}`;
    throw new CitadelError('BRANCH_NAMESPACE_CONFLICT', `the branch ${name} in ${repo} leaves no room for Citadel's result branches (citadel/<fork>/<branch>); rename or delete ${ref}`, {
      details: { ref },
    });
  }
}
