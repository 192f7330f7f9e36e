import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { sha256Digest } from '../../shared/digest';
import type { InstructionFileSchema } from '../../shared/fork/receipts';

type InstructionFile = z.infer<typeof InstructionFileSchema>;

/** Files runtimes load by themselves from the worktree (spec/adapters-and-safety.md). */
const INSTRUCTION_PATHS = ['AGENTS.md', 'CLAUDE.md', 'CLAUDE.local.md', '.claude', '.codex'] as const;
const MAX_READ_BYTES = 16 * 1024 * 1024;
const MAX_ENTRIES = 256;

/**
 * Evidence of which instruction files existed in a worktree and their digests, read with bounded,
 * no-follow reads. A symlink is recorded as `other` with no digest: it is never followed.
 */
export async function collectInstructionFiles(worktree: string): Promise<InstructionFile[]> {
  const out: InstructionFile[] = [];
  for (const relative of INSTRUCTION_PATHS) await describe(worktree, relative, out, 0);
  return out;
}

async function describe(worktree: string, relative: string, out: InstructionFile[], depth: number): Promise<void> {
  const full = path.join(worktree, relative);
  const info = await lstat(full).catch(() => null);
  if (info === null || out.length >= MAX_ENTRIES) return;
  const shown = relative.split(path.sep).join('/');
  if (info.isFile()) out.push({ path: shown, kind: 'file', digest: await digestNoFollow(full) });
  else if (info.isDirectory() && depth < 4) {
    out.push({ path: shown, kind: 'directory', digest: null });
    const entries = (await readdir(full).catch(() => [])).sort().slice(0, MAX_ENTRIES);
    for (const entry of entries) await describe(worktree, path.join(relative, entry), out, depth + 1);
  } else out.push({ path: shown, kind: 'other', digest: null });
}

async function digestNoFollow(file: string): Promise<string | null> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
  if (handle === null) return null;
  try {
    const { size } = await handle.stat();
    if (size > MAX_READ_BYTES) return null;
    const buffer = Buffer.alloc(size);
    await handle.read(buffer, 0, size, 0);
    return sha256Digest(buffer);
  } finally {
    await handle.close();
  }
}
