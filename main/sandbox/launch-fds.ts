import { closeSync, constants, openSync } from 'node:fs';

/**
 * Spawns a launch with its fdFiles open read-only as fds 3, 4, …: `spawnWith` gets the opened fds
 * for the stdio entries after stdin, stdout and stderr. The parent's copies close once the spawn
 * returns: the child holds its own by then.
 */
export function withLaunchFds<T>(fdFiles: readonly string[], spawnWith: (fds: readonly number[]) => T): T {
  const fds: number[] = [];
  try {
    for (const file of fdFiles) fds.push(openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW));
    return spawnWith(fds);
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}
