import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { CitadelError } from '../../../shared/errors';
import type { KeyBackend } from './key-backend';

const MAX_KEY_FILE_BYTES = 4096;
const MAX_TRUSTED_FILE_BYTES = 64 * 1024;
// POSIX permissions: a key file is 0600 and its folder 0700, both owned by this user (as ssh requires).
const POSIX = process.platform !== 'win32';

/**
 * Private keys as files `<keysDir>/<issuer_id>.key` (mode 0600, folder 0700): the weaker store the
 * operator opts in to with CITADEL_KEYSTORE=file. A key file is created complete or not at all,
 * and never replaced: it is written to a private temp file, then hard-linked to its name, which
 * fails if another process created the key first (a rename would overwrite it).
 */
export function fileKeyBackend(keysDir: string): KeyBackend {
  const keyFile = (issuerId: string): string => path.join(keysDir, `${issuerId}.key`);
  // A leading dot: no issuer id names it.
  const trustedFile = path.join(keysDir, '.trusted-keys.json');

  const read = (issuerId: string): Promise<string | null> => readPrivate(keyFile(issuerId), MAX_KEY_FILE_BYTES);
  const readPrivate = async (file: string, maxBytes: number): Promise<string | null> => {
    if (!(await inspectDir(keysDir))) return null;
    let handle;
    try {
      // O_NONBLOCK: a FIFO planted as the key file is refused below instead of blocking the open.
      handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      if (code === 'ELOOP') throw insecure(file, 'is a symbolic link');
      throw ioFailed('read', file, error);
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw insecure(file, 'is not a regular file');
      if (POSIX && info.uid !== process.getuid?.()) throw insecure(file, 'is owned by another user');
      if (POSIX && (info.mode & 0o077) !== 0) throw insecure(file, `is accessible to others (mode ${(info.mode & 0o777).toString(8)}; expected 600)`);
      const buffer = Buffer.alloc(maxBytes + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      // The stored text is one line; an oversized file is handed on as is and read as corrupt.
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      return text.endsWith('\n') ? text.slice(0, -1) : text;
    } catch (error) {
      throw error instanceof CitadelError ? error : ioFailed('read', file, error);
    } finally {
      await handle.close();
    }
  };

  return {
    description: { kind: 'file', weaker: true },
    read,
    async create(issuerId, text) {
      await ensureDir(keysDir);
      const file = keyFile(issuerId);
      const temp = path.join(keysDir, `.${issuerId}.${randomUUID()}.tmp`);
      try {
        await writeNewPrivateFile(temp, text);
        await link(temp, file).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
        await syncDir(keysDir);
      } catch (error) {
        throw ioFailed('write', file, error);
      } finally {
        await rm(temp, { force: true });
      }
      const stored = await read(issuerId);
      if (stored === null) throw ioFailed('write', file, new Error('the key file vanished after it was written'));
      return stored;
    },
    async check() {
      await inspectDir(keysDir);
    },
    readTrusted: () => readPrivate(trustedFile, MAX_TRUSTED_FILE_BYTES),
    async writeTrusted(text) {
      await ensureDir(keysDir);
      const temp = path.join(keysDir, `.trusted-keys.${randomUUID()}.tmp`);
      try {
        await writeNewPrivateFile(temp, text);
        // Unlike a private key, the list is replaced as a whole.
        await rename(temp, trustedFile);
        await syncDir(keysDir);
      } catch (error) {
        throw ioFailed('write', trustedFile, error);
      } finally {
        await rm(temp, { force: true });
      }
    },
  };
}

/** False when the folder does not exist yet; throws when it exists but is not private to this user. */
async function inspectDir(dir: string): Promise<boolean> {
  let info;
  try {
    info = await lstat(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw ioFailed('inspect', dir, error);
  }
  if (info.isSymbolicLink()) throw insecure(dir, 'is a symbolic link');
  if (!info.isDirectory()) throw insecure(dir, 'is not a directory');
  if (POSIX && info.uid !== process.getuid?.()) throw insecure(dir, 'is owned by another user');
  if (POSIX && (info.mode & 0o077) !== 0) throw insecure(dir, `is accessible to others (mode ${(info.mode & 0o777).toString(8)}; expected 700)`);
  return true;
}

async function ensureDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw ioFailed('create', dir, error);
  }
  await inspectDir(dir);
}

// Makes the new directory entry durable; Windows cannot open a directory for syncing.
async function syncDir(dir: string): Promise<void> {
  if (!POSIX) return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function insecure(file: string, why: string): CitadelError {
  return new CitadelError('KEY_STORE_INSECURE', `refusing the key store: ${file} ${why}`, { details: { path: file, reason: why } });
}

function ioFailed(operation: string, file: string, error: unknown): CitadelError {
  const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
  return new CitadelError('KEY_STORE_IO_FAILED', `cannot ${operation} ${file}: ${reason}`, { details: { path: file, operation, reason } });
}

/** Creates `file` (never an existing one), owner-only, with `text` and a newline, synced to disk. */
async function writeNewPrivateFile(file: string, text: string): Promise<void> {
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(`${text}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}
