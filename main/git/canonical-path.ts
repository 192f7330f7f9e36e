import { realpath } from 'node:fs/promises';
import path from 'node:path';

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
