import { canonicalPath } from './canonical-path';
import { runGit, stdoutFields } from './run-git';

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
