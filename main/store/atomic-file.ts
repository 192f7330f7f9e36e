import { open } from 'node:fs/promises';
import path from 'node:path';
// write-file-atomic (npm's own) writes a temp file, fsyncs it and renames it over the target.
import writeFileAtomic from 'write-file-atomic';
import { crashPoint } from './crash-points';
import { assertLockStillHeld } from './held-lock';

/** Owner-only: fork state and evidence are private (decisions D2). */
export const PRIVATE_FILE_MODE = 0o600;

/** temp + fsync + rename + directory fsync (decisions D11): a reader sees the old or the new file, never a torn one. */
export async function writeFileDurably(file: string, data: string | Buffer, options: { mode?: number } = {}): Promise<void> {
  // A holder that lost its fork lock must not overwrite what the new holder writes.
  assertLockStillHeld();
  await writeFileAtomic(file, data, {
    fsync: true,
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    tmpfileCreated: () => crashPoint('atomic-write:temp-created'),
  });
  await fsyncDirectory(path.dirname(file));
}

export async function writeJsonDurably(file: string, value: unknown, options: { mode?: number } = {}): Promise<void> {
  await writeFileDurably(file, `${JSON.stringify(value, null, 2)}\n`, options);
}

/** A private file (fork state, evidence, run specs): owner-only, whatever the umask. */
export async function writePrivateFile(file: string, data: string | Buffer): Promise<void> {
  await writeFileDurably(file, data, { mode: PRIVATE_FILE_MODE });
}

export async function writePrivateJson(file: string, value: unknown): Promise<void> {
  await writeJsonDurably(file, value, { mode: PRIVATE_FILE_MODE });
}

/** Makes a rename or a newly created entry in `dir` survive power loss. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
