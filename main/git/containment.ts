import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CitadelError } from '../../shared/errors';
import { canonicalPath } from './repository';
import { listWorktrees } from './worktree';
import { runGit, stdoutLine } from './run';

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

export type ContainmentViolationKind =
  | 'parent_head_moved'
  | 'parent_branch_switched'
  | 'worktree_added'
  | 'worktree_removed'
  | 'worktree_moved'
  | 'worktree_head_moved'
  | 'worktree_branch_switched'
  | 'branch_created'
  | 'branch_deleted'
  | 'branch_moved';

/** One change found between two snapshots. `subject` is a worktree path or a ref name; before/after are commits, refs or paths. */
export type ContainmentViolation = {
  kind: ContainmentViolationKind;
  subject: string;
  /** The assigned branch the change concerns, when it concerns one. */
  branch_id: string | null;
  before: string | null;
  after: string | null;
};

/** Every change between `before` and `after` that an agent confined to editing files in its worktree cannot have made. */
export function checkContainment(before: ContainmentSnapshot, after: ContainmentSnapshot): ContainmentViolation[] {
  const assignedIds = (snapshot: ContainmentSnapshot): string =>
    JSON.stringify(snapshot.assigned.map((entry) => [entry.branch_id, entry.branch_name]));
  if (assignedIds(before) !== assignedIds(after)) {
    // Comparing snapshots of different assignments would silently skip worktrees: a caller bug.
    throw new CitadelError('INTERNAL_ERROR', 'containment snapshots cover different assigned worktrees');
  }
  const branchIdAt = new Map(before.assigned.map((entry) => [entry.worktree_path, entry.branch_id]));
  const violation = (
    kind: ContainmentViolationKind,
    subject: string,
    was: string | null,
    now: string | null,
    branchId: string | null = branchIdAt.get(subject) ?? null,
  ): ContainmentViolation => ({ kind, subject, branch_id: branchId, before: was, after: now });
  const violations: ContainmentViolation[] = [];

  if (before.parent.head !== after.parent.head) {
    violations.push(violation('parent_head_moved', before.parent.path, before.parent.head, after.parent.head));
  }
  if (before.parent.symbolic_ref !== after.parent.symbolic_ref) {
    violations.push(violation('parent_branch_switched', before.parent.path, before.parent.symbolic_ref, after.parent.symbolic_ref));
  }

  const afterPaths = new Set(after.worktrees.map((entry) => entry.path));
  const beforePaths = new Set(before.worktrees.map((entry) => entry.path));
  const gone = before.worktrees.filter((entry) => !afterPaths.has(entry.path));
  const added = after.worktrees.filter((entry) => !beforePaths.has(entry.path));
  for (const old of gone) {
    const movedTo = old.admin_id === null ? -1 : added.findIndex((entry) => entry.admin_id === old.admin_id);
    const [destination] = movedTo === -1 ? [] : added.splice(movedTo, 1);
    violations.push(
      destination
        ? violation('worktree_moved', old.path, old.path, destination.path)
        : violation('worktree_removed', old.path, old.path, null),
    );
  }
  for (const entry of added) violations.push(violation('worktree_added', entry.path, null, entry.path));

  // A worktree that is gone (or whose path now resolves elsewhere) is reported above; its HEAD is not compared again.
  after.assigned.forEach((now, index) => {
    const was = before.assigned[index];
    if (!was || was.worktree_path !== now.worktree_path || !beforePaths.has(was.worktree_path) || !afterPaths.has(now.worktree_path)) {
      return;
    }
    if (was.head !== now.head) violations.push(violation('worktree_head_moved', was.worktree_path, was.head, now.head));
    if (was.symbolic_ref !== now.symbolic_ref) {
      violations.push(violation('worktree_branch_switched', was.worktree_path, was.symbolic_ref, now.symbolic_ref));
    }
  });

  const refs = [...new Set([...Object.keys(before.branches), ...Object.keys(after.branches)])].sort();
  for (const ref of refs) {
    const was = before.branches[ref] ?? null;
    const now = after.branches[ref] ?? null;
    const owner = before.assigned.find((entry) => `refs/heads/${entry.branch_name}` === ref)?.branch_id ?? null;
    if (was === null) violations.push(violation('branch_created', ref, null, now, owner));
    else if (now === null) violations.push(violation('branch_deleted', ref, was, null, owner));
    else if (was !== now) violations.push(violation('branch_moved', ref, was, now, owner));
  }
  return violations;
}

/** Fails closed with WORKTREE_CONTAINMENT_VIOLATION, listing every violation, when anything changed. */
export function assertContained(before: ContainmentSnapshot, after: ContainmentSnapshot): void {
  const violations = checkContainment(before, after);
  if (violations.length === 0) return;
  const kinds = [...new Set(violations.map((entry) => entry.kind))].join(', ');
  throw new CitadelError('WORKTREE_CONTAINMENT_VIOLATION', `the run changed git state outside its files: ${kinds}`, {
    details: { violations },
  });
}
