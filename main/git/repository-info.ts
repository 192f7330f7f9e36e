import { stat } from 'node:fs/promises';
import { CitadelError } from '../../shared/errors';
import { canonicalPath } from './canonical-path';
import { revParse } from './rev-parse';
import { runGit, stdoutLine } from './run-git';

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
