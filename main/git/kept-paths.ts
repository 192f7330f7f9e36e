import { createHash } from 'node:crypto';
import { lstat, readdir, readlink, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { runGit, stdoutFields, type RepositoryLocation } from './run';

/**
 * The ignored paths a branch worktree held once setup was done and before its runtime started
 * (issue 13): what setup installed (`node_modules/`) and anything Citadel put there before it.
 * `roots` are the entries `git status --ignored=matching` listed (a directory with its trailing
 * `/`); `entries` fingerprints every file, link and directory under them, by lstat, never followed.
 *
 * A file's fingerprint holds its inode, size, mode, mtime and ctime in nanoseconds: the kernel sets
 * ctime on every write, chmod, link or rename and no unprivileged process can set it back, so a
 * file an agent changed or replaced never matches again, however it restores the mtime.
 */
export const KeptPathsSchema = z.strictObject({
  roots: z.array(z.string().min(1)),
  entries: z.record(z.string(), z.string()),
});
export type KeptPaths = z.infer<typeof KeptPathsSchema>;

export const NO_KEPT_PATHS: KeptPaths = { roots: [], entries: {} };

/** What the agent did to the kept paths: extra entries (removed again) and entries changed or gone. */
export interface KeptPathsCheck {
  readonly removed: string[];
  readonly changed: string[];
}

/**
 * The ignored entries of the worktree now, and the fingerprint of everything under them.
 * `leaveOut`: paths another step restores itself before the verifier (the `.worktreeinclude`
 * copies): never kept here, so the clean removes them as before and that step puts them back.
 */
export async function snapshotKeptPaths(repo: RepositoryLocation & { readonly workTree: string }, leaveOut: readonly string[] = []): Promise<KeptPaths> {
  const left = new Set(leaveOut);
  const status = stdoutFields(await runGit(repo, ['status', '--porcelain=v1', '-z', '--ignored=matching', '--untracked-files=all']));
  const roots = status
    .filter((entry) => entry.startsWith('!! '))
    .map((entry) => entry.slice(3))
    .filter((root) => !left.has(root))
    .sort();
  const entries: Record<string, string> = {};
  for (const root of roots) {
    await walk(repo.workTree, withoutSlash(root), (relative, print) => {
      if (left.has(relative)) return 'skip';
      entries[relative] = print;
      return 'descend';
    });
  }
  return { roots, entries };
}

/**
 * Puts the kept paths back to what setup left, as far as that can be done without a copy: every
 * entry under a root that was not there after setup is removed; what changed or is gone is
 * reported (the caller refuses the tree). Never follows a link.
 */
export async function restoreKeptPaths(workTree: string, kept: KeptPaths): Promise<KeptPathsCheck> {
  const removed: string[] = [];
  const seen = new Set<string>();
  const changed: string[] = [];
  for (const root of kept.roots) {
    await walk(workTree, withoutSlash(root), async (relative, print) => {
      const expected = kept.entries[relative];
      if (expected === undefined) {
        removed.push(relative);
        await rm(path.join(workTree, relative), { recursive: true, force: true });
        return 'skip';
      }
      seen.add(relative);
      if (expected !== print) changed.push(relative);
      return 'descend';
    });
  }
  for (const relative of Object.keys(kept.entries)) if (!seen.has(relative)) changed.push(relative);
  return { removed: removed.sort(), changed: [...new Set(changed)].sort() };
}

/** `git clean` patterns that spare exactly the kept roots: anchored, every special character escaped. */
export function cleanExclusions(kept: KeptPaths): string[] {
  return kept.roots.flatMap((root) => ['-e', `/${root.replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`)}`]);
}

const withoutSlash = (root: string): string => (root.endsWith('/') ? root.slice(0, -1) : root);

type Visit = (relative: string, fingerprint: string) => 'skip' | 'descend' | Promise<'skip' | 'descend'>;

async function walk(workTree: string, relative: string, visit: Visit): Promise<void> {
  const full = path.join(workTree, relative);
  const info = await lstat(full, { bigint: true }).catch(() => null);
  if (info === null) return;
  const print = info.isDirectory()
    ? `dir:${info.mode.toString(8)}`
    : info.isSymbolicLink()
      ? `link:${info.ino}:${info.ctimeNs}:${createHash('sha256').update(await readlink(full)).digest('hex')}`
      : `${info.isFile() ? 'file' : 'other'}:${info.mode.toString(8)}:${info.size}:${info.ino}:${info.mtimeNs}:${info.ctimeNs}`;
  if ((await visit(relative, print)) === 'skip' || !info.isDirectory()) return;
  for (const name of (await readdir(full)).sort()) await walk(workTree, `${relative}/${name}`, visit);
}
