import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { Violation } from '../../shared/errors';

/**
 * Whether the final path component may be a symlink. Stored files: never (a link to `/dev/zero`,
 * to another fork's file or to a private file is refused, not read). An operator's own argument
 * (`--executors`, `--workflow`): followed, but what it names must still be a regular file.
 */
export type SymlinkPolicy = 'refuse' | 'follow';

/** Why a file was not opened: an errno code (ENOENT, EACCES, …), or one of these. */
export const NOT_REGULAR_FILE = 'not_regular_file';
export const SYMLINK_REFUSED = 'symlink_refused';

export type OpenedRegularFile = { ok: true; handle: FileHandle; size: number } | { ok: false; reason: string };

export type BoundedBytesResult =
  | { ok: true; bytes: Buffer }
  | { ok: false; kind: 'unreadable'; reason: string }
  | { ok: false; kind: 'invalid'; violation: Violation };

export type BoundedTextResult = { ok: true; text: string } | Exclude<BoundedBytesResult, { ok: true }>;

/** The last bytes of a file: `cut` says whether anything before them was left unread. */
export type TailResult = { ok: true; bytes: Buffer; cut: boolean } | { ok: false; reason: string };

// O_NONBLOCK: opening a FIFO never waits for a writer (so it can be refused below instead of
// hanging a thread of the pool); on a regular file it changes nothing. Both are 0 where absent.
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CHUNK_BYTES = 64 * 1024;

/**
 * Opens `file` for reading only if it is a regular file, checked on the open descriptor (a path
 * checked before opening can be swapped for a FIFO or device in between). The caller closes it.
 */
export async function openRegularFile(file: string, symlinks: SymlinkPolicy): Promise<OpenedRegularFile> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | NONBLOCK | (symlinks === 'refuse' ? NOFOLLOW : 0));
  } catch (error) {
    const reason = errorReason(error);
    return { ok: false, reason: reason === 'ELOOP' && symlinks === 'refuse' ? SYMLINK_REFUSED : reason };
  }
  try {
    const info = await handle.stat();
    if (info.isFile()) return { ok: true, handle, size: info.size };
    await handle.close();
    return { ok: false, reason: NOT_REGULAR_FILE };
  } catch (error) {
    await handle.close();
    return { ok: false, reason: errorReason(error) };
  }
}

/** A regular file's bytes, never more than `maxBytes` + 1 read: a larger file is `file_too_large`. */
export async function readBoundedBytes(file: string, maxBytes: number, symlinks: SymlinkPolicy): Promise<BoundedBytesResult> {
  const opened = await openRegularFile(file, symlinks);
  if (!opened.ok) return { ok: false, kind: 'unreadable', reason: opened.reason };
  const { handle } = opened;
  try {
    // Read in chunks rather than trusting the size fstat gave: the file may still be growing.
    const chunks: Buffer[] = [];
    let length = 0;
    while (length <= maxBytes) {
      const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, maxBytes + 1 - length));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
    }
    if (length > maxBytes) {
      return { ok: false, kind: 'invalid', violation: { path: '$', rule: 'file_too_large', message: `the file is larger than ${maxBytes} bytes` } };
    }
    return { ok: true, bytes: Buffer.concat(chunks, length) };
  } catch (error) {
    return { ok: false, kind: 'unreadable', reason: errorReason(error) };
  } finally {
    await handle.close();
  }
}

/** Reads a UTF-8 text file as `readBoundedBytes` does, with fatal decoding. */
export async function readBoundedText(file: string, maxBytes: number, symlinks: SymlinkPolicy): Promise<BoundedTextResult> {
  const read = await readBoundedBytes(file, maxBytes, symlinks);
  if (!read.ok) return read;
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(read.bytes) };
  } catch {
    return { ok: false, kind: 'invalid', violation: { path: '$', rule: 'not_utf8', message: 'the file is not valid UTF-8 text' } };
  }
}

/** At most the last `maxBytes` of a regular file (never a symlink): for logs whose outcome is at their end. */
export async function readTail(file: string, maxBytes: number): Promise<TailResult> {
  const opened = await openRegularFile(file, 'refuse');
  if (!opened.ok) return opened;
  const { handle, size } = opened;
  try {
    const start = Math.max(0, size - maxBytes);
    const buffer = Buffer.alloc(size - start);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, start + length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return { ok: true, bytes: buffer.subarray(0, length), cut: start > 0 };
  } catch (error) {
    return { ok: false, reason: errorReason(error) };
  } finally {
    await handle.close();
  }
}

function errorReason(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}
