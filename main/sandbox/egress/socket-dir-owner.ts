import { lstat, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { isSameProcessAlive } from '../../runtimes/os-process/process-liveness';
import { processStartTime } from '../../runtimes/os-process/proc-stat';

/** The file naming the process that made a bridge socket directory, beside the socket. */
export const OWNER_FILE = 'owner.json';

/** A socket that neither accepts nor refuses within this long is taken as served: kept. */
const CONNECT_TIMEOUT_MS = 1000;

/** Records this process (pid and start time, so a recycled pid is not taken for it) as the directory's maker. */
export async function recordOwner(dir: string): Promise<void> {
  const owner = { pid: process.pid, start_time: processStartTime(process.pid) };
  await writeFile(path.join(dir, OWNER_FILE), `${JSON.stringify(owner)}\n`, { mode: 0o600, flag: 'wx' });
}

/**
 * Whether a bridge socket directory is still someone's: a bridge answers on its socket, or its maker
 * still runs (the CLI makes it before the supervisor listens, so until then the maker is its owner).
 * A directory with neither socket nor owner file may be one being made right now: kept too.
 */
export async function hasLiveOwner(dir: string, socketName: string): Promise<boolean> {
  const owner = await readOwner(dir);
  // The maker is asked first: a bridge that is someone else's is connected to only when it must be.
  if (owner !== null && owner !== 'missing' && isSameProcessAlive(owner.pid, owner.start_time)) return true;
  const socket = path.join(dir, socketName);
  if ((await lstat(socket).catch(() => null))?.isSocket()) return socketAccepts(socket);
  return owner === 'missing';
}

/** The recorded maker; null when the file is unreadable or not one we write (nobody to wait for). */
async function readOwner(dir: string): Promise<{ pid: number; start_time: number | null } | null | 'missing'> {
  const text = await readFile(path.join(dir, OWNER_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? 'missing' : null));
  if (text === null || text === 'missing') return text;
  try {
    const parsed = JSON.parse(text) as { pid?: unknown; start_time?: unknown };
    const startTime = parsed.start_time;
    if (typeof parsed.pid !== 'number' || (typeof startTime !== 'number' && startTime !== null)) return null;
    return { pid: parsed.pid, start_time: startTime ?? null };
  } catch {
    return null;
  }
}

/** True unless connecting is refused: ECONNREFUSED on a unix socket means no process listens on it. */
function socketAccepts(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect({ path: socket });
    const settle = (accepts: boolean): void => {
      clearTimeout(timer);
      probe.destroy();
      resolve(accepts);
    };
    const timer = setTimeout(() => settle(true), CONNECT_TIMEOUT_MS);
    probe.once('connect', () => settle(true));
    probe.once('error', (error: NodeJS.ErrnoException) => settle(error.code !== 'ECONNREFUSED'));
  });
}
