import { stat } from 'node:fs/promises';

/**
 * A file's version as the file system tells it (an atomic write replaces the inode) and when it
 * was written, or null when it is gone: what the outside-change watch polls instead of reading.
 */
export async function fileVersion(file: string): Promise<{ version: string; writtenAt: number } | null> {
  const facts = await stat(file).catch(() => null);
  return facts === null ? null : { version: `${facts.ino}:${facts.size}:${facts.mtimeMs}`, writtenAt: facts.mtimeMs };
}
