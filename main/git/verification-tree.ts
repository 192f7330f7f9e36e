import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { cleanExclusions, NO_KEPT_PATHS, restoreKeptPaths, type KeptPaths } from './kept-paths';
import type { BranchRepository } from './branch-repository';
import { runGit, stdoutFields, stdoutLine } from './run';
import { treeEntriesOfMode } from './tree-entries';

/** What the worktree must be before a verifier judges it: the result commit Citadel made. */
export interface VerificationTarget {
  readonly commit: string;
  readonly tree: string;
}

/**
 * Why a worktree is not the result: what `git status` still lists, a moved HEAD, a `.git` Citadel
 * did not write, or submodule (gitlink) directories that hold files the result does not.
 */
export type VerificationTreeProblem =
  | { readonly kind: 'status'; readonly entries: readonly string[] }
  | { readonly kind: 'gitlink'; readonly paths: readonly string[] }
  | { readonly kind: 'head_tree'; readonly expected: string; readonly actual: string }
  | { readonly kind: 'git_file' }
  /** Paths setup left (issue 13) that the run changed or removed: the verifier would not judge what setup installed. */
  | { readonly kind: 'kept_paths'; readonly entries: readonly string[] };

export type VerificationTree = { readonly ok: true } | { readonly ok: false; readonly problems: readonly VerificationTreeProblem[] };

const GITLINK_MODE = '160000';
// Enough of a listing to say what stayed, without copying a whole tree into a private report.
const MAX_LISTED_ENTRIES = 100;

/**
 * Makes the branch worktree hold exactly the tree of `result` (issue 12, "verified is what lands"):
 * every untracked and ignored file is removed (`git clean -ffdx`, so a planted `node_modules/x.js`
 * or a `.gitignore`d `fix.js` the tests would load is gone), then checked, never assumed: the status
 * lists nothing (ignored and untracked included), HEAD's tree is `result.tree`, the root `.git`
 * (which git never cleans) is still the file Citadel wrote, and every submodule directory is empty
 * (the result holds only the submodule's commit id; neither clean nor status looks inside). A
 * clean in place rather than a second checkout: on a 20,000-file tree a checkout doubles the
 * fork-start cost, a clean is a stat walk.
 * Repeatable: a retry after a crash cleans and checks again.
 *
 * What setup left (issue 13: `kept`, the ignored paths present once setup was done, before the
 * runtime started) is spared, and only that: the clean excludes exactly those roots, anything under
 * them that was not there after setup is removed, and an entry the run changed, replaced or removed
 * (its lstat fingerprint differs) refuses the tree. So an agent can neither add a file to the kept
 * set (it is removed) nor change one in it (the tree is refused), and an ignored path it created
 * anywhere else is cleaned as before. The fingerprints were taken by Citadel outside the sandbox
 * before the runtime was launched and are kept in the attempt's private files.
 */
export async function prepareVerificationTree(repo: BranchRepository, result: VerificationTarget, kept: KeptPaths = NO_KEPT_PATHS): Promise<VerificationTree> {
  // -ff: also untracked nested repositories. -q: only failures are printed.
  await runGit(repo, ['clean', '-ffdxq', ...cleanExclusions(kept)]);
  const problems: VerificationTreeProblem[] = [];
  const keptCheck = await restoreKeptPaths(repo.workTree, kept);
  if (keptCheck.changed.length > 0) problems.push({ kind: 'kept_paths', entries: keptCheck.changed.slice(0, MAX_LISTED_ENTRIES) });
  const keptRoots = new Set(kept.roots.map((root) => `!! ${root}`));
  const status = stdoutFields(await runGit(repo, ['status', '--porcelain=v1', '-z', '--ignored=matching', '--untracked-files=all'])).filter((entry) => !keptRoots.has(entry));
  if (status.length > 0) problems.push({ kind: 'status', entries: status.slice(0, MAX_LISTED_ENTRIES) });
  const head = stdoutLine(await runGit(repo, ['rev-parse', '--verify', 'HEAD^{tree}']));
  if (head !== result.tree) problems.push({ kind: 'head_tree', expected: result.tree, actual: head });
  if (!(await isCitadelGitFile(repo))) problems.push({ kind: 'git_file' });
  const filled = await filledGitlinks(repo, result.tree);
  if (filled.length > 0) problems.push({ kind: 'gitlink', paths: filled.slice(0, MAX_LISTED_ENTRIES) });
  return problems.length === 0 ? { ok: true } : { ok: false, problems };
}

/**
 * The worktree's `.git` is the regular file ensureBranchRepository wrote, naming the branch's git
 * dir: a verifier's own git commands must read Citadel's repository, not one the agent named.
 */
export async function isCitadelGitFile(repo: BranchRepository): Promise<boolean> {
  const file = path.join(repo.workTree, '.git');
  const info = await lstat(file).catch(() => null);
  if (info === null || !info.isFile() || info.size > 4096) return false;
  return (await readFile(file, 'utf8')) === `gitdir: ${repo.gitDir}\n`;
}

/** Gitlinks of `tree` whose worktree path is anything but an empty directory or nothing. */
async function filledGitlinks(repo: BranchRepository, tree: string): Promise<string[]> {
  const filled: string[] = [];
  for (const link of await treeEntriesOfMode(repo, tree, GITLINK_MODE)) {
    const full = path.join(repo.workTree, link.path);
    const info = await lstat(full).catch(() => null);
    if (info === null) continue;
    if (!info.isDirectory() || (await readdir(full)).length > 0) filled.push(link.path);
  }
  return filled;
}
