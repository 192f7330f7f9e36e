import { lstat, mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { sha256Digest } from '../../shared/digest';
import type { CitadelError } from '../../shared/errors';
import { WorktreeIncludeEntrySchema, type WorktreeIncludeEntry } from '../../shared/fork/contract';
import { runGit } from '../git/run';
import { writePrivateFile } from '../store/atomic-file';
import { readIncludeSource } from './include-source';
import { refuse, WORKTREE_INCLUDE_FILE } from './include-refusal';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * What a `.worktreeinclude` may copy (issue 13): files, not directories. A pattern naming a
 * dependency folder (`node_modules`) matches its files and trips these caps: setup installs
 * dependencies, copying them is refused (WORKTREE_INCLUDE_TOO_LARGE), never done silently.
 */
export const WORKTREE_INCLUDE_LIMITS = { listBytes: 64 * KiB, files: 64, fileBytes: MiB, totalBytes: 8 * MiB } as const;

/** The chosen files: what the contract records, and each content by its digest (kept privately, never in a record). */
export interface WorktreeIncludes {
  readonly entries: readonly WorktreeIncludeEntry[];
  readonly contents: ReadonlyMap<string, Buffer>;
}

// The matches are passed to git as literal pathspecs (runGit has no stdin): a few hundred per call.
const IGNORED_BATCH = 256;

/**
 * The patterns of a `.worktreeinclude` (gitignore syntax: blank lines and `#` comments skipped,
 * trailing spaces dropped, `!` negates). A pattern with a `..` segment would name a path outside
 * the repository: refused (WORKTREE_INCLUDE_OUTSIDE), as gitignore syntax itself never matches one.
 */
export function parseWorktreeInclude(text: string): string[] {
  const patterns: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    const body = line.startsWith('!') ? line.slice(1) : line;
    if (body.includes('\0') || body.split('/').includes('..')) throw refuse('WORKTREE_INCLUDE_OUTSIDE', `${JSON.stringify(line)} names a path outside the repository`, { pattern: line });
    patterns.push(line);
  }
  return patterns;
}

/**
 * The files `<root>/.worktreeinclude` chooses from the operator's checkout, or null when there is
 * none. Matching is git's own (`ls-files --exclude-from`), the same gitignore implementation that
 * decides what is ignored, so "matched" and "ignored" never disagree; only files git also reports
 * as ignored (`ls-files --ignored --exclude-standard`: the repository's and the operator's excludes) are kept. Refused, with
 * nothing written: a match that is tracked, a symlink, a hard link, anything but a regular file, a
 * path outside the repository, or more than WORKTREE_INCLUDE_LIMITS. Each file is read through one
 * descriptor its checks were made on (include-source.ts).
 */
export async function resolveWorktreeIncludes(root: string, baseRevision = 'HEAD'): Promise<WorktreeIncludes | null> {
  const listFile = path.join(root, WORKTREE_INCLUDE_FILE);
  const info = await lstat(listFile).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw refuse('WORKTREE_INCLUDE_INVALID', `cannot be read (${error.code ?? 'unknown'})`, { path: WORKTREE_INCLUDE_FILE });
  });
  if (info === null) return null;
  if (info.isSymbolicLink()) throw refuse('WORKTREE_INCLUDE_SYMLINK', 'is a symlink; it must be a file of the repository', { path: WORKTREE_INCLUDE_FILE });
  if (!info.isFile()) throw refuse('WORKTREE_INCLUDE_INVALID', 'is not a regular file', { path: WORKTREE_INCLUDE_FILE });
  if (info.size > WORKTREE_INCLUDE_LIMITS.listBytes) throw refuse('WORKTREE_INCLUDE_TOO_LARGE', `is over ${WORKTREE_INCLUDE_LIMITS.listBytes} bytes`, { path: WORKTREE_INCLUDE_FILE });
  const patterns = parseWorktreeInclude(await readFile(listFile, 'utf8'));
  if (patterns.length === 0) return { entries: [], contents: new Map() };

  const exclude = `--exclude-from=${listFile}`;
  const tracked = nulList((await runGit(root, ['ls-files', '-z', '--cached', '--ignored', exclude])).stdout);
  if (tracked.length > 0) {
    throw refuse('WORKTREE_INCLUDE_TRACKED', `matches tracked files (${preview(tracked)}); it may name only ignored files`, { paths: tracked.slice(0, 20) });
  }
  const matched = nulList((await runGit(root, ['ls-files', '-z', '--others', '--ignored', exclude])).stdout);
  const chosen = await ignoredOf(root, matched);
  await assertAbsentFromBase(root, baseRevision, chosen);

  const entries: WorktreeIncludeEntry[] = [];
  const contents = new Map<string, Buffer>();
  let total = 0;
  for (const file of chosen.sort()) {
    // The digest the contract and receipts record is of these bytes, the ones stored and copied.
    const content = await readIncludeSource(root, file, WORKTREE_INCLUDE_LIMITS.fileBytes);
    total += content.length;
    if (total > WORKTREE_INCLUDE_LIMITS.totalBytes) throw tooLarge(`the files chosen are over ${WORKTREE_INCLUDE_LIMITS.totalBytes} bytes in all`, file);
    const digest = sha256Digest(content);
    entries.push({ path: file, digest, size_bytes: content.length });
    contents.set(digest, content);
  }
  return { entries, contents };
}

/**
 * What the index says is not what a worktree gets: its base revision's tree is (HEAD, or a
 * follow-up's parent result, which an agent wrote). A chosen file that tree tracks would be
 * overwritten by the copy and committed with the branch's result, its content delivered into the
 * operator's repository; one under a path the tree holds as a file or symlink cannot be copied.
 */
async function assertAbsentFromBase(root: string, baseRevision: string, chosen: readonly string[]): Promise<void> {
  if (chosen.length === 0) return;
  const ancestors = new Set(chosen.flatMap((file) => file.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
  const run = await runGit(root, ['ls-tree', '-z', '-t', '--end-of-options', baseRevision, '--', ...chosen, ...ancestors], { env: { GIT_LITERAL_PATHSPECS: '1' } });
  const wanted = new Set(chosen);
  const clashes = nulList(run.stdout)
    .map((line) => ({ type: line.split(' ')[1] ?? '', path: line.slice(line.indexOf('\t') + 1) }))
    .filter((entry) => wanted.has(entry.path) || (ancestors.has(entry.path) && entry.type !== 'tree'))
    .map((entry) => entry.path);
  if (clashes.length > 0) {
    throw refuse('WORKTREE_INCLUDE_TRACKED', `matches what the fork's base revision tracks (${preview(clashes)}); it may name only files the base does not hold`, { paths: clashes.slice(0, 20) });
  }
}

/** The untracked matches git ignores, stopping as soon as they are more than may be copied. */
async function ignoredOf(root: string, matched: readonly string[]): Promise<string[]> {
  const ignored: string[] = [];
  for (let i = 0; i < matched.length; i += IGNORED_BATCH) {
    const batch = matched.slice(i, i + IGNORED_BATCH);
    // Those of the batch git's standard excludes ignore (the repository's, its info/exclude, the user's).
    const run = await runGit(root, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--', ...batch], { env: { GIT_LITERAL_PATHSPECS: '1' } });
    ignored.push(...nulList(run.stdout));
    if (ignored.length > WORKTREE_INCLUDE_LIMITS.files) {
      throw tooLarge(`matches more than ${WORKTREE_INCLUDE_LIMITS.files} ignored files (${preview(ignored)}); name files, not dependency folders: setup installs those`, ignored[0] ?? '');
    }
  }
  return ignored;
}

const tooLarge = (message: string, file: string): CitadelError => refuse('WORKTREE_INCLUDE_TOO_LARGE', message, { path: file });

/** Keeps each chosen content in `dir` (the fork's private store), named by its digest: the source every copy is made from. */
export async function storeWorktreeIncludes(dir: string, includes: WorktreeIncludes): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const [digest, content] of includes.contents) await writePrivateFile(path.join(dir, storedName(digest)), content);
}

/** One file a copy wrote: its worktree path and the digest of the bytes written (measured, not taken from the contract). */
export const CopiedIncludeSchema = WorktreeIncludeEntrySchema.pick({ path: true, digest: true });
export type CopiedInclude = z.infer<typeof CopiedIncludeSchema>;
/** The record of one attempt's copy, which its receipt states as the files copied. */
export const CopiedIncludesSchema = z.strictObject({ copied: z.array(CopiedIncludeSchema) });

/**
 * Copies the contract's files from the fork's store into a branch worktree (after its checkout,
 * before setup, the runtime and the verifier), each checked against its digest, and says what it
 * wrote. A worktree path that runs through a symlink or a non-directory is refused: the copy lands
 * where it is named or nowhere.
 */
export async function copyWorktreeIncludes(storeDir: string, worktree: string, entries: readonly WorktreeIncludeEntry[]): Promise<CopiedInclude[]> {
  const copied: CopiedInclude[] = [];
  for (const entry of entries) {
    const content = await readFile(path.join(storeDir, storedName(entry.digest))).catch(() => null);
    const digest = content === null ? null : sha256Digest(content);
    if (content === null || digest !== entry.digest) {
      throw refuse('WORKTREE_INCLUDE_INVALID', `the stored copy of ${entry.path} is missing or does not match its digest`, { path: entry.path });
    }
    const target = await preparedTarget(worktree, entry.path);
    await rm(target, { force: true });
    // 0600: the worktree's owner only (inside the sandbox, the mapped sandbox user).
    const handle = await open(target, 'wx', 0o600);
    try {
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
    copied.push({ path: entry.path, digest });
  }
  return copied;
}

const EXCLUDE_MARK = '# citadel: .worktreeinclude files (issue 13)';

/**
 * Makes the branch repository ignore the copied files too, whatever made them ignored in the
 * operator's checkout (its `.git/info/exclude`, their own excludes file): so Citadel's result
 * commit never adds one, and the verifier's clean treats them as the ignored files they are.
 * Written into the branch's git dir before its pre-run snapshot; repeatable.
 */
export async function excludeWorktreeIncludes(gitDir: string, entries: readonly WorktreeIncludeEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const file = path.join(gitDir, 'info', 'exclude');
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const existing = await readFile(file, 'utf8').catch(() => '');
  const kept = existing.split(EXCLUDE_MARK)[0] ?? '';
  const lines = entries.map((entry) => `/${entry.path.replace(/[\\*?[\]]/g, (c) => `\\${c}`).replace(/ $/, '\\ ')}`);
  await writePrivateFile(file, `${kept}${kept === '' || kept.endsWith('\n') ? '' : '\n'}${EXCLUDE_MARK}\n${lines.join('\n')}\n`);
}

/** The worktree path of `file`, its parent folders made; refused when any part of it is a symlink or not a folder. */
async function preparedTarget(worktree: string, file: string): Promise<string> {
  const parts = file.split('/');
  let current = worktree;
  for (const [i, part] of parts.entries()) {
    current = path.join(current, part);
    const last = i === parts.length - 1;
    const info = await lstat(current).catch(() => null);
    if (info === null) {
      if (!last) await mkdir(current, { mode: 0o700 });
      continue;
    }
    if (info.isSymbolicLink()) throw refuse('WORKTREE_INCLUDE_SYMLINK', `${file} would be written through a symlink in the worktree`, { path: file });
    if (last ? !info.isFile() : !info.isDirectory()) throw refuse('WORKTREE_INCLUDE_INVALID', `${file} cannot be written: ${current} is in the way`, { path: file });
  }
  return current;
}

/**
 * The contract's files that a run changed in the worktree: edited, removed, or replaced by anything
 * but a regular file. Copied files are protected paths: the collection fails any branch with one
 * (POLICY_PROTECTED_PATH). Ignored files are outside git's diff, so their digests are compared.
 */
export async function changedWorktreeIncludes(worktree: string, entries: readonly WorktreeIncludeEntry[]): Promise<string[]> {
  const changed: string[] = [];
  for (const entry of entries) {
    const full = path.join(worktree, ...entry.path.split('/'));
    const info = await lstat(full).catch(() => null);
    const same = info !== null && info.isFile() && info.size === entry.size_bytes && sha256Digest(await readFile(full)) === entry.digest;
    if (!same) changed.push(entry.path);
  }
  return changed;
}

const storedName = (digest: string): string => digest.replace(/^sha256:/, '');

const nulList = (stdout: Buffer): string[] => stdout.toString('utf8').split('\0').filter(Boolean);

const preview = (paths: readonly string[]): string => `${paths.slice(0, 5).join(', ')}${paths.length > 5 ? `, … ${paths.length} in all` : ''}`;
