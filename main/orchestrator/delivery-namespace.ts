import { CitadelError } from '../../shared/errors';
import { assertBranchName } from '../git/refs';
import { runGit } from '../git/run';

/**
 * Each branch's result is delivered to `citadel/<fork>/<branch>` in the operator's repository at
 * collection. Git keeps refs as paths, so an existing branch named by a leading part of that name
 * (`citadel`, `citadel/<fork>`) makes it impossible to create. A valid name's leading parts are
 * valid names too, so only the full names are given to check-ref-format, and every name is looked
 * up in one `git show-ref`.
 */

/** Before any fork state exists: no leading part of any result branch, nor the branch itself, may exist. */
export async function assertDeliveryNamespaceFree(repo: string, branchNames: readonly string[]): Promise<void> {
  await Promise.all(branchNames.map((name) => assertBranchName(repo, name)));
  const names = [...new Set(branchNames.flatMap(leadingParts)), ...branchNames];
  refuseExisting(repo, names, await branchHeads(repo, names));
}

/**
 * At delivery: the result branch's commit in `repo` (null when absent), which may already be there
 * from an interrupted delivery; a leading part that exists is refused.
 */
export async function resultBranchHead(repo: string, branchName: string): Promise<string | null> {
  await assertBranchName(repo, branchName);
  const heads = await branchHeads(repo, [...leadingParts(branchName), branchName]);
  refuseExisting(repo, leadingParts(branchName), heads);
  return heads.get(branchName) ?? null;
}

/** `citadel/F/B` → `citadel`, `citadel/F`. */
function leadingParts(name: string): string[] {
  const parts = name.split('/');
  return parts.slice(1).map((_, index) => parts.slice(0, index + 1).join('/'));
}

/** The commit of each `refs/heads/<name>` that exists, by name. */
async function branchHeads(repo: string, names: readonly string[]): Promise<Map<string, string>> {
  const refs = new Map(names.map((name) => [`refs/heads/${name}`, name]));
  // Exit 1: none exists. show-ref matches a pattern against the last components of every ref
  // (`refs/x/refs/heads/citadel` too), so only a line naming exactly one of these refs counts.
  const run = await runGit(repo, ['show-ref', '--', ...refs.keys()], { okExitCodes: [0, 1] });
  const heads = new Map<string, string>();
  for (const line of run.stdout.toString('utf8').split('\n')) {
    const [commit, ref] = line.split(' ');
    const name = ref === undefined ? undefined : refs.get(ref);
    if (commit !== undefined && name !== undefined) heads.set(name, commit);
  }
  return heads;
}

/** Refuses the first of `names`, in order, that exists. */
function refuseExisting(repo: string, names: readonly string[], heads: ReadonlyMap<string, string>): void {
  const name = names.find((candidate) => heads.has(candidate));
  if (name === undefined) return;
  const ref = `refs/heads/${name}`;
  throw new CitadelError('BRANCH_NAMESPACE_CONFLICT', `the branch ${name} in ${repo} leaves no room for Citadel's result branches (citadel/<fork>/<branch>); rename or delete ${ref}`, {
    details: { ref },
  });
}
