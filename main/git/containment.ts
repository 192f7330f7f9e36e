import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CitadelError } from '../../shared/errors';
import type { BranchRepository } from './branch-repository';
import { runGit, stdoutFields, stdoutLine } from './run';

const ObjectIdSchema = z.string().regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, 'a git object id');
const FileDigestSchema = z.string().regex(/^(?:file|link|dir):[0-9a-f]{64}$|^dir$/, 'a git metadata file digest');

/**
 * Everything an agent must not change in its branch's own repository, recorded before a run and
 * again after it (executor-profiles.md: "Before verification, Citadel rechecks the parent and every
 * assigned worktree"). The parent is Citadel's own repository of this one branch (issue 11), so
 * whatever differs was done by this branch alone. Plain JSON, stored with the fork.
 */
export const ContainmentSnapshotSchema = z.strictObject({
  branch_id: z.string(),
  git_dir: z.string(),
  work_tree: z.string(),
  /** false when the work tree directory is gone. */
  work_tree_present: z.boolean(),
  head: z.strictObject({ commit: ObjectIdSchema.nullable(), symbolic_ref: z.string().nullable() }),
  /** Every ref (branches, tags, stash, notes, replace refs, remotes) and the object it names. */
  refs: z.record(z.string(), ObjectIdSchema),
  /**
   * Every file of the git dir that configures git or names other repositories or worktrees (config,
   * hooks, info/, objects/info/ alternates, worktrees/, modules/, commondir …) by its content digest.
   * Only what Citadel's own commands rewrite (index, reflogs, refs, objects) is left out.
   */
  files: z.record(z.string(), FileDigestSchema),
  /**
   * Paths the index marks skip-worktree or assume-unchanged: either hides a file's changes from
   * `git add` and `git status`, so the result commit would not hold what the verifier ran. Absent
   * in snapshots taken before this was recorded (read as none).
   */
  index_flags: z.array(z.string()).optional(),
});
export type ContainmentSnapshot = z.infer<typeof ContainmentSnapshotSchema>;

/** Paths of the git dir a snapshot leaves to other checks (refs) or that Citadel's own commits and reads change. */
const NOT_METADATA = new Set(['index', 'logs', 'refs', 'packed-refs', 'HEAD', 'COMMIT_EDITMSG', 'ORIG_HEAD', 'FETCH_HEAD', 'objects']);
const OBJECT_METADATA = 'objects/info';

/** Records HEAD, every ref and every metadata file of the branch's own repository. */
export async function containmentSnapshot(branchId: string, repo: BranchRepository): Promise<ContainmentSnapshot> {
  // Files first, without git: a planted config is on record before any git process reads it.
  const files = await metadataDigests(repo.gitDir);
  const workTreePresent = await lstat(repo.workTree).then(
    (info) => info.isDirectory(),
    () => false,
  );
  const [head, symbolic, refs, indexFlags] = await Promise.all([
    runGit(repo, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { okExitCodes: [0, 1] }),
    runGit(repo, ['symbolic-ref', '--quiet', 'HEAD'], { okExitCodes: [0, 1] }),
    allRefs(repo),
    flaggedIndexPaths(repo),
  ]);
  return {
    branch_id: branchId,
    git_dir: repo.gitDir,
    work_tree: repo.workTree,
    work_tree_present: workTreePresent,
    head: { commit: head.exitCode === 0 ? stdoutLine(head) : null, symbolic_ref: symbolic.exitCode === 0 ? stdoutLine(symbolic) : null },
    refs,
    files,
    index_flags: indexFlags,
  };
}

/** `git ls-files -v` tags an assume-unchanged entry in lower case and a skip-worktree one `S` (or `s`, both). */
async function flaggedIndexPaths(repo: BranchRepository): Promise<string[]> {
  const flagged: string[] = [];
  for (const entry of stdoutFields(await runGit(repo, ['ls-files', '-v', '-z']))) {
    const tag = entry.slice(0, 1);
    if (tag === 'S' || tag !== tag.toUpperCase()) flagged.push(entry.slice(2));
  }
  return flagged.sort();
}

async function allRefs(repo: BranchRepository): Promise<Record<string, string>> {
  // Ref names cannot contain NUL or newlines, so one line per ref is unambiguous.
  const run = await runGit(repo, ['for-each-ref', '--format=%(refname)%00%(objectname)']);
  const refs: Record<string, string> = {};
  for (const line of run.stdout.toString('utf8').split('\n')) {
    const [ref, id] = line.split('\0');
    if (ref && id) refs[ref] = id;
  }
  return refs;
}

async function metadataDigests(gitDir: string): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  const walk = async (relative: string): Promise<void> => {
    const full = path.join(gitDir, relative);
    const info = await lstat(full).catch(() => null);
    if (info === null) return;
    if (info.isSymbolicLink()) digests[relative] = `link:${sha256(await readlink(full))}`;
    else if (info.isDirectory()) {
      const names = (await readdir(full)).sort();
      if (relative !== '') digests[relative] = 'dir';
      for (const name of names) {
        const child = relative === '' ? name : `${relative}/${name}`;
        if (relative === '' && NOT_METADATA.has(name)) continue;
        await walk(child);
      }
    } else digests[relative] = `file:${sha256(await readFile(full))}`;
  };
  await walk('');
  await walk(OBJECT_METADATA);
  return digests;
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

export type ContainmentViolationKind =
  | 'worktree_removed'
  | 'worktree_head_moved'
  | 'worktree_branch_switched'
  | 'branch_created'
  | 'branch_deleted'
  | 'branch_moved'
  | 'ref_created'
  | 'ref_deleted'
  | 'ref_moved'
  | 'git_metadata_added'
  | 'git_metadata_removed'
  | 'git_metadata_changed'
  /** A tracked path the run marked skip-worktree or assume-unchanged in the index. */
  | 'index_flag_set';

/** One change found between two snapshots. `subject` is the work tree, a ref name or a git-dir-relative path. */
export type ContainmentViolation = {
  kind: ContainmentViolationKind;
  subject: string;
  /** The branch whose repository changed: every violation belongs to exactly one branch. */
  branch_id: string;
  before: string | null;
  after: string | null;
};

/** Every change between `before` and `after` that an agent confined to editing files in its worktree cannot have made. */
export function checkContainment(before: ContainmentSnapshot, after: ContainmentSnapshot): ContainmentViolation[] {
  if (before.branch_id !== after.branch_id || before.git_dir !== after.git_dir || before.work_tree !== after.work_tree) {
    // Comparing snapshots of different repositories would compare nothing: a caller bug.
    throw new CitadelError('INTERNAL_ERROR', 'containment snapshots cover different branch repositories');
  }
  const violations: ContainmentViolation[] = [];
  const violation = (kind: ContainmentViolationKind, subject: string, was: string | null, now: string | null): void => {
    violations.push({ kind, subject, branch_id: before.branch_id, before: was, after: now });
  };
  if (before.work_tree_present && !after.work_tree_present) violation('worktree_removed', before.work_tree, before.work_tree, null);
  if (before.head.commit !== after.head.commit) violation('worktree_head_moved', before.work_tree, before.head.commit, after.head.commit);
  if (before.head.symbolic_ref !== after.head.symbolic_ref) {
    violation('worktree_branch_switched', before.work_tree, before.head.symbolic_ref, after.head.symbolic_ref);
  }
  for (const ref of union(before.refs, after.refs)) {
    const was = before.refs[ref] ?? null;
    const now = after.refs[ref] ?? null;
    const family = ref.startsWith('refs/heads/') ? 'branch' : 'ref';
    if (was === null) violation(`${family}_created`, ref, null, now);
    else if (now === null) violation(`${family}_deleted`, ref, was, null);
    else if (was !== now) violation(`${family}_moved`, ref, was, now);
  }
  const flaggedBefore = new Set(before.index_flags ?? []);
  for (const file of after.index_flags ?? []) if (!flaggedBefore.has(file)) violation('index_flag_set', file, null, 'flagged');
  for (const file of union(before.files, after.files)) {
    const was = before.files[file] ?? null;
    const now = after.files[file] ?? null;
    if (was === null) violation('git_metadata_added', file, null, now);
    else if (now === null) violation('git_metadata_removed', file, was, null);
    else if (was !== now) violation('git_metadata_changed', file, was, now);
  }
  return violations;
}

const union = (a: Record<string, string>, b: Record<string, string>): string[] => [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();

/** Fails closed with WORKTREE_CONTAINMENT_VIOLATION, listing every violation, when anything changed. */
export function assertContained(before: ContainmentSnapshot, after: ContainmentSnapshot): void {
  const violations = checkContainment(before, after);
  if (violations.length === 0) return;
  const kinds = [...new Set(violations.map((entry) => entry.kind))].join(', ');
  throw new CitadelError('WORKTREE_CONTAINMENT_VIOLATION', `the run changed git state outside its files: ${kinds}`, {
    details: { violations },
  });
}
