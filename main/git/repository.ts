import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { CitadelError } from '../../shared/errors';
import { revParse } from './refs';
import { runGit, stdoutLine } from './run';

/**
 * `target` with every symlink resolved, so `/var/x` and `/private/var/x` (or any symlinked parent)
 * compare equal. For a path that does not exist (a removed worktree) the deepest existing ancestor
 * is resolved and the rest appended, so the same path compares equal before and after removal.
 */
export async function canonicalPath(target: string): Promise<string> {
  const absolute = path.resolve(target);
  try {
    return await realpath(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const parent = path.dirname(absolute);
    if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === absolute) throw error;
    return path.join(await canonicalPath(parent), path.basename(absolute));
  }
}

export interface RepositoryInfo {
  /** realpath of the work tree's top level. */
  readonly root: string;
  /** The commit HEAD points at. */
  readonly head: string;
  /** Short name of the checked-out branch; null when HEAD is detached. */
  readonly branch: string | null;
  /** Any staged, unstaged or untracked change (ignored files do not count). */
  readonly dirty: boolean;
}

type InvalidReason = 'not_a_directory' | 'not_a_repository' | 'bare_repository' | 'not_a_work_tree' | 'no_commits';

const invalid = (dir: string, reason: InvalidReason): CitadelError =>
  new CitadelError('REPOSITORY_INVALID', `${dir} is not a usable git repository (${reason.replaceAll('_', ' ')})`, {
    details: { path: dir, reason },
  });

/** Facts about the repository that contains `dir`. A non-repository, a bare one, or one without commits is REPOSITORY_INVALID. */
export async function repositoryInfo(dir: string): Promise<RepositoryInfo> {
  const isDirectory = await stat(dir).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  if (!isDirectory) throw invalid(dir, 'not_a_directory');

  const bare = await runGit(dir, ['rev-parse', '--is-bare-repository'], { okExitCodes: [0, 128] });
  if (bare.exitCode !== 0) throw invalid(dir, 'not_a_repository');
  if (stdoutLine(bare) === 'true') throw invalid(dir, 'bare_repository');

  // Fails inside a .git directory, which is a repository but has no work tree.
  const top = await runGit(dir, ['rev-parse', '--show-toplevel'], { okExitCodes: [0, 128] });
  if (top.exitCode !== 0) throw invalid(dir, 'not_a_work_tree');
  const root = await canonicalPath(stdoutLine(top));

  const head = await revParse(root, 'HEAD');
  if (head === null) throw invalid(dir, 'no_commits');

  const branch = await runGit(root, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { okExitCodes: [0, 1] });
  return {
    root,
    head,
    branch: branch.exitCode === 0 ? stdoutLine(branch) : null,
    dirty: await isDirty(root),
  };
}

/** Whether the work tree at `root` has any staged, unstaged or untracked change. */
export async function isDirty(root: string): Promise<boolean> {
  // Explicit flags, so `status.showUntrackedFiles=no` or ignored submodules in repo config cannot hide a change.
  const status = await runGit(root, ['status', '--porcelain=v1', '-z', '--untracked-files=normal', '--ignore-submodules=none']);
  return status.stdout.length > 0;
}

/**
 * Repository facts for `dir`, which must be the top level of its work tree. A directory nested in
 * some other repository would otherwise let a commit or merge land in that repository instead.
 */
export async function requireWorktreeRoot(dir: string): Promise<RepositoryInfo> {
  const info = await repositoryInfo(dir);
  if (info.root !== (await canonicalPath(dir))) {
    throw new CitadelError('REPOSITORY_INVALID', `${dir} is not the top level of a git work tree (that is ${info.root})`, {
      details: { path: dir, reason: 'not_a_work_tree_root', root: info.root },
    });
  }
  return info;
}
