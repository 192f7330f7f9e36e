import { lstatSync, rmdirSync, unlinkSync } from 'node:fs';
import { lstat, mkdtemp, readdir, rmdir, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CitadelError } from '../../../shared/errors';
import { hasLiveOwner, OWNER_FILE, recordOwner } from './socket-dir-owner';
import { socketPathProblem } from './socket-path';

const PREFIX = 'citadel-egress-';
const SOCKET_NAME = 'egress.sock';
/** What mkdtemp makes of PREFIX: six more characters. */
const MADE_NAME = /^citadel-egress-[A-Za-z0-9]{6}$/;

/**
 * A fresh path for one bridge socket, inside a directory made for it alone (mkdtemp: a name no one
 * can guess, mode 0700), under the temporary directory because sun_path holds about 104 bytes and a
 * fork root path can be longer. A fixed name in the shared /tmp would let any local user take it
 * first and make every launch fail. The launch spec records the path; the bridge removes the
 * directory when it closes. Directories a crashed supervisor left there are reclaimed first.
 */
export async function makeBridgeSocketPath(): Promise<string> {
  const fits = (base: string): boolean => socketPathProblem(path.join(base, `${PREFIX}XXXXXX`, SOCKET_NAME)) === null;
  const base = fits(tmpdir()) ? tmpdir() : '/tmp';
  await reclaimStaleSocketDirs(base);
  const dir = await mkdtemp(path.join(base, PREFIX));
  await assertPrivateDir(dir);
  await recordOwner(dir);
  return path.join(dir, SOCKET_NAME);
}

/**
 * Removes the bridge directories in `base` that are Citadel's (mkdtemp's name, this user's, 0700)
 * and no one's any more (hasLiveOwner). Best effort: a directory that cannot be judged is kept.
 */
export async function reclaimStaleSocketDirs(base: string): Promise<void> {
  const names = await readdir(base).catch(() => []);
  for (const name of names.filter((entry) => MADE_NAME.test(entry))) {
    const dir = path.join(base, name);
    const ours = await assertPrivateDir(dir).then(
      () => true,
      () => false,
    );
    if (ours && !(await hasLiveOwner(dir, SOCKET_NAME))) await removeSocketDir(path.join(dir, SOCKET_NAME));
  }
}

/**
 * The socket's directory must be a real directory of this user's that no one else can enter:
 * otherwise another user could plant or replace what the sandbox connects to.
 */
export async function assertPrivateSocketDir(socketPath: string): Promise<void> {
  await assertPrivateDir(path.dirname(socketPath));
}

/**
 * Removes the socket (when it is one: a closed server has already unlinked it, a crashed one has not)
 * and the owner file, then the directory, which stays when it still holds anything else.
 */
export async function removeSocketDir(socketPath: string): Promise<void> {
  if ((await lstat(socketPath).catch(() => null))?.isSocket()) await unlink(socketPath).catch(() => undefined);
  await unlink(path.join(path.dirname(socketPath), OWNER_FILE)).catch(() => undefined);
  await rmdir(path.dirname(socketPath)).catch(() => undefined);
}

/** removeSocketDir for a process's 'exit' handler, where only synchronous work runs. */
export function removeSocketDirSync(socketPath: string): void {
  const attempt = (remove: () => void): void => {
    try {
      remove();
    } catch {
      // already gone, or not ours to remove
    }
  };
  attempt(() => lstatSync(socketPath).isSocket() && unlinkSync(socketPath));
  attempt(() => unlinkSync(path.join(path.dirname(socketPath), OWNER_FILE)));
  attempt(() => rmdirSync(path.dirname(socketPath)));
}

async function assertPrivateDir(dir: string): Promise<void> {
  const stats = await lstat(dir).catch(() => null);
  const problem =
    stats === null
      ? 'does not exist'
      : !stats.isDirectory()
        ? 'is not a directory'
        : stats.uid !== process.getuid?.()
          ? `belongs to uid ${stats.uid}`
          : (stats.mode & 0o077) !== 0
            ? `has mode ${(stats.mode & 0o777).toString(8)}, not 700`
            : null;
  if (problem !== null) throw new CitadelError('INTERNAL_ERROR', `the egress bridge directory ${dir} ${problem}`, { details: { socket_dir: dir } });
}
