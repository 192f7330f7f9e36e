import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorktreeIncludeEntry } from '../../shared/fork/contract';
import { LIVE_DIFF_MAX_PATHS, LIVE_DIFF_MAX_PATH_LENGTH } from '../../shared/fork/events';
import { printablePath } from '../../shared/fork/printable-path';
import { PINNED_DIFF_OPTIONS } from '../git/diff';
import { runGit, stdoutByteFields, type RepositoryLocation } from '../git/run';
import { excludeWorktreeIncludes } from '../workspace/worktree-include';

/** A running worktree against the base: what the Fork view shows while the runtime works. */
export interface LiveDiff {
  readonly files_changed: number;
  readonly insertions: number;
  readonly deletions: number;
  /** The changed files' paths, relative to the worktree, printable (printablePath), sorted, each once, the first LIVE_DIFF_MAX_PATHS of them. */
  readonly paths: readonly string[];
}

// Untracked files' lines are counted here, not by git: bounds on the files and on the bytes read
// per tick (not per file) keep a tick to a few reads and memchr scans however much the agent writes.
const MAX_COUNTED_FILES = 256;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_TICK_BYTES = 8 * 1024 * 1024;
const CHUNK_BYTES = 256 * 1024;
// Git's own test for a binary file: a NUL in its first 8000 bytes.
const BINARY_PROBE_BYTES = 8000;

/**
 * Tracked changes from `git diff --numstat <base>` (work tree against the base commit), plus the
 * untracked files git would add, each counted as new; the first of all their paths are named.
 * Read-only for the executor: git reads the index but never writes it (GIT_OPTIONAL_LOCKS=0,
 * gitEnvironment), writes no object and takes no lock, so the agent's own git commands are never
 * disturbed. Lines of an untracked file are
 * counted from its first MAX_FILE_BYTES, for the first MAX_COUNTED_FILES of them, until
 * MAX_TICK_BYTES are read in all; a binary one (or one past a bound) counts as a file only, so
 * `insertions` can be short of the truth. The receipt's diff, taken from the result commit, is the
 * authoritative one. `signal` (the caller's time limit, or its stop) kills both git processes and
 * ends the counting.
 *
 * Git runs with `live` (liveGitDir) as its git dir, never the branch's own: diffing a work tree
 * runs the clean filters and diff drivers a git dir's config names, in this uncontained process,
 * and the agent may be writing while the diff runs. The branch's index is read through
 * GIT_INDEX_FILE and its objects through an alternate; no configuration of the agent's is read.
 */
export async function liveDiff(repository: RepositoryLocation & { readonly workTree: string }, live: LiveGitDir, base: string, signal?: AbortSignal): Promise<LiveDiff> {
  const location = { gitDir: live.gitDir, workTree: repository.workTree };
  const env = { GIT_INDEX_FILE: path.join(repository.gitDir, 'index') };
  const options = signal === undefined ? { env } : { env, signal };
  const [tracked, untracked] = await Promise.all([
    runGit(location, ['diff', ...PINNED_DIFF_OPTIONS, '--no-renames', '--numstat', '-z', base, '--'], options),
    runGit(location, ['ls-files', '-z', '--others', '--exclude-standard'], options),
  ]);
  let files = 0;
  let insertions = 0;
  let deletions = 0;
  const changed: Buffer[] = [];
  for (const record of stdoutByteFields(tracked)) {
    // `-z` leaves the path unquoted, tabs and all, in git's bytes: it is everything after the two counts.
    const first = record.indexOf(0x09);
    const second = record.indexOf(0x09, first + 1);
    files += 1;
    // Binary files print `-` for both counts.
    insertions += Number.parseInt(record.toString('latin1', 0, first), 10) || 0;
    deletions += Number.parseInt(record.toString('latin1', first + 1, second), 10) || 0;
    changed.push(record.subarray(second + 1));
  }
  const others = stdoutByteFields(untracked);
  files += others.length;
  insertions += await untrackedLines(repository.workTree, others.slice(0, MAX_COUNTED_FILES), signal);
  return { files_changed: files, insertions, deletions, paths: listedPaths([...changed, ...others]) };
}

/**
 * What the Fork view lists of the changed files: printable, so names that differ only in bytes
 * that are not UTF-8 stay apart and none carries a newline or an escape code; sorted (so a tick
 * that changes nothing lists the same); each once (the view keys nothing by them, but the event's
 * schema refuses a name twice); bounded.
 */
function listedPaths(names: readonly Uint8Array[]): string[] {
  const printable = names.map(printablePath).filter((p) => p.length > 0 && p.length <= LIVE_DIFF_MAX_PATH_LENGTH);
  return [...new Set(printable)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, LIVE_DIFF_MAX_PATHS);
}

export interface LiveGitDir {
  readonly gitDir: string;
  dispose(): Promise<void>;
}

/**
 * The live diff's own git dir, private to this process: a config Citadel wrote (no filter, driver
 * or fsmonitor), the branch's objects as an alternate, and the branch's `.worktreeinclude`
 * exclusions, so the operator's copied files are not counted as the agent's.
 */
export async function liveGitDir(branchGitDir: string, includes: readonly WorktreeIncludeEntry[]): Promise<LiveGitDir> {
  const gitDir = await mkdtemp(path.join(tmpdir(), 'citadel-live-git-'));
  await mkdir(path.join(gitDir, 'objects', 'info'), { recursive: true });
  await mkdir(path.join(gitDir, 'refs'));
  await writeFile(path.join(gitDir, 'HEAD'), 'ref: refs/heads/live\n');
  await writeFile(path.join(gitDir, 'config'), '[core]\n\trepositoryformatversion = 0\n\tbare = false\n');
  await writeFile(path.join(gitDir, 'objects', 'info', 'alternates'), `${path.join(branchGitDir, 'objects')}\n`);
  await excludeWorktreeIncludes(gitDir, includes);
  return { gitDir, dispose: () => rm(gitDir, { recursive: true, force: true }) };
}

/** Lines of untracked files (names in git's bytes), within MAX_TICK_BYTES read in all; throws the signal's reason once it aborts. */
export async function untrackedLines(workTree: string, relatives: readonly Uint8Array[], signal?: AbortSignal): Promise<number> {
  const buffer = Buffer.alloc(CHUNK_BYTES);
  const budget = { bytes: MAX_TICK_BYTES };
  let lines = 0;
  for (const relative of relatives) {
    if (budget.bytes <= 0) break;
    signal?.throwIfAborted();
    lines += await countLines(Buffer.concat([Buffer.from(`${workTree}${path.sep}`), relative]), buffer, budget, signal);
  }
  return lines;
}

/** Lines of a regular file (not followed through a final symlink); 0 for a binary or unreadable one. */
async function countLines(file: Buffer, buffer: Buffer, budget: { bytes: number }, signal: AbortSignal | undefined): Promise<number> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return 0;
  }
  try {
    if (!(await handle.stat()).isFile()) return 0;
    let lines = 0;
    let last = 0x0a;
    for (let position = 0; position < MAX_FILE_BYTES && budget.bytes > 0; ) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, MAX_FILE_BYTES - position, budget.bytes), position);
      if (bytesRead === 0) break;
      const bytes = buffer.subarray(0, bytesRead);
      if (position === 0 && bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return 0;
      for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) lines += 1;
      last = bytes[bytesRead - 1] ?? last;
      position += bytesRead;
      budget.bytes -= bytesRead;
    }
    // A last line without a newline is a line too, as git counts it.
    return last === 0x0a ? lines : lines + 1;
  } finally {
    await handle.close();
  }
}
