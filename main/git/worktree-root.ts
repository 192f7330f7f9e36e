import { CitadelError } from '../../shared/errors';
import { canonicalPath } from './canonical-path';
import { repositoryInfo } from './repository-info';
import type { RepositoryInfo } from './repository-info';

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
