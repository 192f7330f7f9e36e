import { constants, type Stats } from 'node:fs';
import { access, lstat, open, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { CitadelError, ErrorCode } from '../../shared/errors';
import { refuse } from './include-refusal';

/**
 * Reading a file `.worktreeinclude` chose from the operator's checkout (issue 27): opened once, each
 * check made on the open descriptor, and the bytes read from that same descriptor, so the file
 * checked is the file copied. A path check followed by an open by path let a hard link or a symlink
 * swapped in between bring a file from outside the repository into every worktree.
 */

// No component is followed if it is a symlink (ELOOP), and a FIFO cannot hang the open (O_NONBLOCK).
// libuv opens every descriptor close-on-exec (Node has no O_CLOEXEC constant to add).
const ENTRY_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

// Linux names an open directory /proc/self/fd/N: opening `<that>/<name>` looks `name` up in the very
// directory the descriptor holds, whatever its path has become (openat, which Node lacks).
const PROC_FD = '/proc/self/fd';

/** An open directory of the checkout, and each directory from the root down to it: its path and what its descriptor held. */
export interface IncludeDirectory {
  readonly handle: FileHandle;
  readonly chain: readonly { readonly path: string; readonly stats: Stats }[];
  readonly viaProc: boolean;
}

// Names the file and why (`reason`: symlink, hard link, outside, not a regular file, …).
const refuseFile = (code: ErrorCode, file: string, reason: string, message: string): CitadelError => refuse(code, `${file} ${message}`, { path: file, reason });

// Gone or replaced since git listed it (the operator's checkout is live): refused, typed.
const changed = (file: string): CitadelError => refuseFile('WORKTREE_INCLUDE_INVALID', file, 'changed', 'changed while it was being read; try again');

/** The folder holding `file` (a path git listed, relative to `root`), opened one component at a time from the root, none through a symlink. */
export async function openIncludeDirectory(root: string, file: string): Promise<IncludeDirectory> {
  const viaProc = await access(PROC_FD).then(
    () => true,
    () => false,
  );
  // The root is the operator's repository as git named it: the one path followed, the anchor.
  let handle = await open(root, constants.O_RDONLY | constants.O_DIRECTORY).catch(() => Promise.reject(changed(file)));
  try {
    const chain = [{ path: root, stats: await handle.stat() }];
    for (const part of parts(file).slice(0, -1)) {
      const at = path.join(chain[chain.length - 1]!.path, part);
      const next = await openEntry(viaProc ? `${PROC_FD}/${handle.fd}/${part}` : at, file);
      await handle.close();
      handle = next;
      const stats = await next.stat();
      // git listed a file below it, so it was a folder then.
      if (!stats.isDirectory()) throw changed(file);
      chain.push({ path: at, stats });
    }
    return { handle, chain, viaProc };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * `file` in its open folder, opened without following a symlink and checked on that descriptor: a
 * regular file with exactly one link (another link, to a file that may lie outside the repository,
 * is refused), still where the folders' paths lead. The caller closes it.
 */
export async function openIncludeFile(dir: IncludeDirectory, file: string): Promise<FileHandle> {
  const name = path.posix.basename(file);
  const at = path.join(dir.chain[dir.chain.length - 1]!.path, name);
  const handle = await openEntry(dir.viaProc ? `${PROC_FD}/${dir.handle.fd}/${name}` : at, file);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw refuseFile('WORKTREE_INCLUDE_INVALID', file, 'not a regular file', 'is not a regular file');
    if (stats.nlink !== 1) {
      throw refuseFile('WORKTREE_INCLUDE_OUTSIDE', file, 'hard link', `is a hard link (${stats.nlink} links): the same file may lie outside the repository; copy it instead`);
    }
    await confirmChain(dir.chain, { path: at, stats }, file);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The content of `file`, read from the one descriptor its checks were made on; over `maxBytes` refused (WORKTREE_INCLUDE_TOO_LARGE). */
export async function readIncludeSource(root: string, file: string, maxBytes: number): Promise<Buffer> {
  const dir = await openIncludeDirectory(root, file);
  try {
    const handle = await openIncludeFile(dir, file);
    try {
      const size = (await handle.stat()).size;
      if (size > maxBytes) throw refuseFile('WORKTREE_INCLUDE_TOO_LARGE', file, 'too large', `is over ${maxBytes} bytes`);
      const buffer = Buffer.alloc(size);
      const { bytesRead } = await handle.read(buffer, 0, size, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } finally {
    await dir.handle.close();
  }
}

/**
 * After the file is open, each path of the chain must still be the directory its descriptor holds,
 * and the file's path the file opened, by (dev, ino). Where /proc is missing (macOS) the folders were
 * opened by path, so a folder swapped for a symlink between two opens would lead elsewhere: the
 * descriptors then hold something other than what these paths now name, and the copy is refused. A
 * swap made and undone between these lstat calls escapes it there; through /proc (Linux) every
 * descriptor was reached from the one above it, nothing can be swapped in, and this is a second look.
 */
async function confirmChain(chain: IncludeDirectory['chain'], opened: IncludeDirectory['chain'][number], file: string): Promise<void> {
  for (const [i, entry] of [...chain, opened].entries()) {
    // The root may itself be named through a symlink (it is the anchor); no component below it may.
    const now = await (i === 0 ? stat(entry.path) : lstat(entry.path)).catch(() => null);
    if (now === null || now.dev !== entry.stats.dev || now.ino !== entry.stats.ino) throw changed(file);
  }
}

/** Opens one component; a symlink is refused by name, anything gone is a change. */
async function openEntry(target: string, file: string): Promise<FileHandle> {
  return open(target, ENTRY_FLAGS).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP') throw refuseFile('WORKTREE_INCLUDE_SYMLINK', file, 'symlink', 'runs through a symlink; only regular files of the repository are copied');
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') throw changed(file);
    throw refuseFile('WORKTREE_INCLUDE_INVALID', file, 'not a regular file', `cannot be opened as a regular file (${error.code ?? 'unknown'})`);
  });
}

function parts(file: string): string[] {
  const split = file.split('/');
  // git lists plain relative paths; anything else is not one of its files.
  if (split.some((part) => part === '' || part === '.' || part === '..')) throw refuseFile('WORKTREE_INCLUDE_OUTSIDE', file, 'outside', 'is not a plain path inside the repository');
  return split;
}
