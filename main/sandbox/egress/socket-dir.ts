import { lstat, mkdtemp, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CitadelError } from '../../../shared/errors';
import { socketPathProblem } from './socket-path';

const PREFIX = 'citadel-egress-';
const SOCKET_NAME = 'egress.sock';

/**
 * A fresh path for one bridge socket, inside a directory made for it alone (mkdtemp: a name no one
 * can guess, mode 0700), under the temporary directory because sun_path holds about 104 bytes and a
 * fork root path can be longer. A fixed name in the shared /tmp would let any local user take it
 * first and make every launch fail. The launch spec records the path; the bridge removes the
 * directory when it closes.
 */
export async function makeBridgeSocketPath(): Promise<string> {
  const fits = (base: string): boolean => socketPathProblem(path.join(base, `${PREFIX}XXXXXX`, SOCKET_NAME)) === null;
  const base = fits(tmpdir()) ? tmpdir() : '/tmp';
  const dir = await mkdtemp(path.join(base, PREFIX));
  await assertPrivateDir(dir);
  return path.join(dir, SOCKET_NAME);
}

/**
 * The socket's directory must be a real directory of this user's that no one else can enter:
 * otherwise another user could plant or replace what the sandbox connects to.
 */
export async function assertPrivateSocketDir(socketPath: string): Promise<void> {
  await assertPrivateDir(path.dirname(socketPath));
}

/** Removes the socket's directory once it is empty; one that still holds anything else is left alone. */
export async function removeSocketDir(socketPath: string): Promise<void> {
  await rmdir(path.dirname(socketPath)).catch(() => undefined);
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
