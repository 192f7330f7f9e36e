import path from 'node:path';
import { runGit } from '../../git/run';
import { readBoundedText } from '../../store/read-bounded-text';

/** A convention file larger than this is not a convention file `citadel init` reads. */
const MAX_CONVENTION_BYTES = 1024 * 1024;

/**
 * The files git tracks in a repository (what every fork's worktree gets), as `citadel init`
 * reads them: paths repository-relative with `/`, contents from the working tree.
 */
export interface RepositoryFiles {
  readonly root: string;
  readonly tracked: readonly string[];
  has(file: string): boolean;
  /** Some tracked file lies under `dir/`. */
  hasDirectory(dir: string): boolean;
  /** The file's text, or null when it is not tracked, not a regular file or too large. */
  read(file: string): Promise<string | null>;
}

export async function repositoryFiles(root: string): Promise<RepositoryFiles> {
  const listed = (await runGit(root, ['ls-files', '-z', '--cached'])).stdout.toString('utf8');
  const tracked = listed.split('\0').filter((entry) => entry !== '');
  const set = new Set(tracked);
  return {
    root,
    tracked,
    has: (file) => set.has(file),
    hasDirectory: (dir) => tracked.some((file) => file.startsWith(`${dir}/`)),
    read: async (file) => {
      if (!set.has(file)) return null;
      // A tracked symlink is not followed: it may name a file outside the repository.
      const read = await readBoundedText(path.join(root, file), MAX_CONVENTION_BYTES, 'refuse');
      return read.ok ? read.text : null;
    },
  };
}
