import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CitadelError } from '../../shared/errors';
import { canonicalPath } from './canonical-path';
import { listWorktrees } from './list-worktrees';
import { runGit, stdoutLine } from './run-git';

const ObjectIdSchema = z.string().regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, 'a git object id');

/**
 * Everything an agent must not change outside its own files, recorded before a run and again after
 * it (executor-profiles.md: "Before verification, Citadel rechecks the parent and every assigned
 * worktree"). Plain JSON, so it can be stored with the fork and reloaded through this schema.
 */
export const ContainmentSnapshotSchema = z.strictObject({
  parent: z.strictObject({
    path: z.string(),
    head: ObjectIdSchema.nullable(),
    symbolic_ref: z.string().nullable(),
  }),
  /** Registered worktrees by path; `admin_id` is the name of git's admin directory, which survives `git worktree move` (null for the main worktree). */
  worktrees: z.array(z.strictObject({ path: z.string(), admin_id: z.string().nullable() })),
  /** Every `refs/heads/*` ref and its commit. */
  branches: z.record(z.string(), ObjectIdSchema),
  assigned: z.array(
    z.strictObject({
      branch_id: z.string(),
      worktree_path: z.string(),
      branch_name: z.string(),
      /** null when no worktree is registered at the path. */
      head: ObjectIdSchema.nullable(),
      symbolic_ref: z.string().nullable(),
    }),
  ),
});
export type ContainmentSnapshot = z.infer<typeof ContainmentSnapshotSchema>;

export interface AssignedWorktree {
  readonly branchId: string;
  readonly worktreePath: string;
  readonly branchName: string;
}

/** Records the parent worktree, the registered worktrees, all local branches and each assigned worktree of `repo`. */
export async function containmentSnapshot(repo: string, assigned: readonly AssignedWorktree[]): Promise<ContainmentSnapshot> {
  const root = await canonicalPath(stdoutLine(await runGit(repo, ['rev-parse', '--show-toplevel'])));
  const [worktrees, adminIds, branches] = await Promise.all([listWorktrees(repo), adminIdsByPath(repo), localBranches(repo)]);
  const parent = worktrees.find((entry) => entry.path === root);
  if (!parent) {
    throw new CitadelError('REPOSITORY_INVALID', `${root} is not among its repository's worktrees`, { details: { path: root } });
  }
  const assignedEntries = await Promise.all(
    assigned.map(async (worktree) => {
      const worktreePath = await canonicalPath(worktree.worktreePath);
      const entry = worktrees.find((candidate) => candidate.path === worktreePath);
      return {
        branch_id: worktree.branchId,
        worktree_path: worktreePath,
        branch_name: worktree.branchName,
        head: entry?.head ?? null,
        symbolic_ref: entry?.branch ?? null,
      };
    }),
  );
  return {
    parent: { path: root, head: parent.head, symbolic_ref: parent.branch },
    worktrees: worktrees
      .map((entry) => ({ path: entry.path, admin_id: adminIds.get(entry.path) ?? null }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    branches,
    assigned: assignedEntries,
  };
}

async function localBranches(repo: string): Promise<Record<string, string>> {
  // Ref names cannot contain NUL or newlines, so one line per ref is unambiguous.
  const run = await runGit(repo, ['for-each-ref', '--format=%(refname)%00%(objectname)', 'refs/heads/']);
  const branches: Record<string, string> = {};
  for (const line of run.stdout.toString('utf8').split('\n')) {
    const [ref, commit] = line.split('\0');
    if (ref && commit) branches[ref] = commit;
  }
  return branches;
}

// gitrepository-layout: `worktrees/<id>/gitdir` holds the path of the linked worktree's `.git` file.
async function adminIdsByPath(repo: string): Promise<Map<string, string>> {
  const commonDir = stdoutLine(await runGit(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir']));
  const adminRoot = path.join(commonDir, 'worktrees');
  const ids = await readdir(adminRoot).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const byPath = new Map<string, string>();
  for (const id of ids) {
    const gitdir = await readFile(path.join(adminRoot, id, 'gitdir'), 'utf8').catch(() => null);
    if (gitdir === null) continue;
    const dotGit = path.resolve(adminRoot, id, gitdir.replace(/\n$/, ''));
    byPath.set(await canonicalPath(path.dirname(dotGit)), id);
  }
  return byPath;
}
