import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { sha256Digest } from '../../shared/digest';
import type { InstructionFileSchema } from '../../shared/fork/receipts';
import { readBoundedBytes } from '../store/read-bounded-text';

type InstructionFile = z.infer<typeof InstructionFileSchema>;

/** Files runtimes load by themselves from the worktree (spec/adapters-and-safety.md). */
const INSTRUCTION_PATHS = ['AGENTS.md', 'CLAUDE.md', 'CLAUDE.local.md', '.claude', '.codex'] as const;
const MAX_READ_BYTES = 16 * 1024 * 1024;
const MAX_ENTRIES = 256;

/**
 * Evidence of which instruction files existed in a worktree and their digests, read with bounded,
 * no-follow, non-blocking reads (the agent wrote this tree: a FIFO named CLAUDE.md must not hang the
 * collection). A symlink is recorded as `other` with no digest: it is never followed.
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

/** A file swapped for a FIFO, a device or a link after its lstat, or one past the limit, has no digest. */
async function digestNoFollow(file: string): Promise<string | null> {
  const read = await readBoundedBytes(file, MAX_READ_BYTES, 'refuse');
  return read.ok ? sha256Digest(read.bytes) : null;
}
