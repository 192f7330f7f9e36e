import path from 'node:path';
import { CitadelError } from '../../shared/errors';
import { assertBranchName, isAncestor, requireCommit, revParse } from './refs';
import { canonicalPath } from './repository';
import { runGit, stdoutFields } from './run';

export interface WorktreeEntry {
  /** realpath when the directory exists; the path git recorded when it does not (prunable). */
  readonly path: string;
  /** The path exactly as git recorded it. */
  readonly recordedPath: string;
  /** null for a bare entry or an unborn branch. */
  readonly head: string | null;
  /** Full ref name (`refs/heads/…`) of the checked-out branch; null when detached or bare. */
  readonly branch: string | null;
  readonly detached: boolean;
  readonly bare: boolean;
  readonly locked: boolean;
  readonly prunable: boolean;
}

/** Every worktree registered with `repo`, main worktree first, from `git worktree list --porcelain -z`. */
export async function listWorktrees(repo: string): Promise<WorktreeEntry[]> {
  const run = await runGit(repo, ['worktree', 'list', '--porcelain', '-z']);
  return Promise.all(
    parseWorktreeRecords(stdoutFields(run)).map(async (record) => ({ ...record, path: await canonicalPath(record.recordedPath) })),
  );
}

type WorktreeRecord = Omit<WorktreeEntry, 'path'>;

// A record is a run of `key[ value]` fields; an empty field ends it.
function parseWorktreeRecords(fields: readonly string[]): WorktreeRecord[] {
  const records: WorktreeRecord[] = [];
  let current: { -readonly [K in keyof WorktreeRecord]: WorktreeRecord[K] } | null = null;
  for (const field of fields) {
    if (field === '') {
      if (current) records.push(current);
      current = null;
      continue;
    }
    const space = field.indexOf(' ');
    const key = space === -1 ? field : field.slice(0, space);
    const value = space === -1 ? '' : field.slice(space + 1);
    if (key === 'worktree') {
      current = { recordedPath: value, head: null, branch: null, detached: false, bare: false, locked: false, prunable: false };
    } else if (current) {
      if (key === 'HEAD') current.head = /^0+$/.test(value) ? null : value;
      else if (key === 'branch') current.branch = value;
      else if (key === 'detached' || key === 'bare' || key === 'locked' || key === 'prunable') current[key] = true;
    }
  }
  if (current) records.push(current);
  return records;
}

export interface AddedWorktree {
  /** realpath of the new worktree. */
  readonly path: string;
  /** The commit its new branch starts at. */
  readonly head: string;
}

/** `git worktree add -b <branch> <path> <base>`: a new branch at `baseRevision`, checked out at `worktreePath`. */
export async function addWorktree(
  repo: string,
  worktreePath: string,
  branchName: string,
  baseRevision: string,
): Promise<AddedWorktree> {
  await assertBranchName(repo, branchName);
  const base = await requireCommit(repo, baseRevision);
  // Absolute, so the path can never be read as an option and does not depend on git's cwd.
  const target = path.resolve(worktreePath);
  await runGit(repo, ['worktree', 'add', '--no-track', '-b', branchName, target, base]);
  return { path: await canonicalPath(target), head: base };
}

export interface EnsuredWorktree {
  readonly path: string;
  /** The branch's commit: the base when just created, possibly later when it already existed. */
  readonly head: string;
  /** false when the worktree was already there exactly as requested. */
  readonly created: boolean;
}

/**
 * `addWorktree` as a repeatable effect: retried on resume, it accepts the worktree it made before
 * (same path registered, on the same branch, the branch at the base or beyond) and refuses with
 * WORKTREE_CONFLICT when anything else holds the path or the branch.
 */
export async function ensureWorktree(
  repo: string,
  worktreePath: string,
  branchName: string,
  baseRevision: string,
): Promise<EnsuredWorktree> {
  await assertBranchName(repo, branchName);
  const base = await requireCommit(repo, baseRevision);
  const target = await canonicalPath(worktreePath);
  const ref = `refs/heads/${branchName}`;
  const worktrees = await listWorktrees(repo);
  const atPath = worktrees.find((entry) => entry.path === target);
  const onBranch = worktrees.find((entry) => entry.branch === ref);
  const branchHead = await revParse(repo, ref);

  if (!atPath && branchHead === null) {
    return { ...(await addWorktree(repo, target, branchName, base)), created: true };
  }
  const conflict = (reason: string): CitadelError =>
    new CitadelError('WORKTREE_CONFLICT', `cannot create worktree ${target} on ${branchName}: ${reason}`, {
      details: { path: target, branch: branchName, reason, registered_branch: atPath?.branch ?? null, branch_head: branchHead },
    });
  if (!atPath) throw conflict(onBranch ? `the branch is checked out at ${onBranch.path}` : 'the branch already exists');
  if (atPath.branch !== ref) throw conflict('another worktree is registered at that path');
  if (atPath.prunable) throw conflict('the registered worktree directory is missing');
  if (branchHead === null || !(await isAncestor(repo, base, branchHead))) throw conflict('the branch does not descend from the base');
  return { path: target, head: branchHead, created: false };
}

/**
 * Removes the worktree registered at `worktreePath`, untracked and modified files included, for
 * `citadel fork clean`. One whose directory is already gone is pruned. Returns false when nothing
 * was registered there, so a retried clean succeeds. Locked worktrees and the main one are refused by git.
 */
export async function removeWorktree(repo: string, worktreePath: string): Promise<boolean> {
  const target = await canonicalPath(worktreePath);
  const entry = (await listWorktrees(repo)).find((candidate) => candidate.path === target);
  if (!entry) return false;
  if (entry.prunable) await runGit(repo, ['worktree', 'prune']);
  else await runGit(repo, ['worktree', 'remove', '--force', entry.recordedPath]);
  return true;
}
