import { createHash } from 'node:crypto';
import { devNull } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sha256Digest } from '../../shared/digest';
import type { Digest } from '../../shared/digest';
import { requireCommit } from './refs';
import { runGit, stdoutFields, streamGit, type RepositoryLocation } from './run';

/**
 * Flags that fix diff output regardless of the repository's config (colour, external drivers,
 * textconv, prefixes, relative paths, algorithm, order file), so numstat, changed paths and the
 * diff digest mean the same on every machine. Context flags such as `--unified` are not here: they
 * turn on patch output.
 */
export const PINNED_DIFF_OPTIONS: readonly string[] = [
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-relative',
  '--ignore-submodules=none',
  '--submodule=short',
  '--diff-algorithm=myers',
  '--indent-heuristic',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  `-O${devNull}`,
];

/**
 * Every repository-relative path the change from `base` to `head` touches, sorted. Renames are not
 * paired up, so both the old and the new path appear: a protected file cannot be moved away unseen.
 */
export async function changedPaths(worktree: string | RepositoryLocation, base: string, head: string): Promise<string[]> {
  const [from, to] = await Promise.all([requireCommit(worktree, base), requireCommit(worktree, head)]);
  const run = await runGit(worktree, ['diff', ...PINNED_DIFF_OPTIONS, '--no-renames', '--name-only', '-z', from, to, '--']);
  return [...new Set(stdoutFields(run))].sort();
}

export interface DiffFileSummary {
  /** Repository-relative path after the change. */
  readonly path: string;
  /** The path before a rename; null otherwise. */
  readonly previous_path: string | null;
  /** null for a binary file. */
  readonly insertions: number | null;
  readonly deletions: number | null;
}

export interface DiffSummary {
  readonly files_changed: number;
  /** Text lines only: binary files contribute nothing. */
  readonly insertions: number;
  readonly deletions: number;
  readonly files: readonly DiffFileSummary[];
  /** sha256 of the exact bytes of the full binary patch from base to head. */
  readonly diff_digest: Digest;
}

/**
 * Files, line counts and a digest of the change from `base` to `head` (renames detected). The
 * patch is hashed as git prints it, never held: it is as large as the files the change holds.
 */
export async function diffSummary(worktree: string | RepositoryLocation, base: string, head: string): Promise<DiffSummary> {
  const [from, to] = await Promise.all([requireCommit(worktree, base), requireCommit(worktree, head)]);
  const patch = createHash('sha256');
  const [numstat] = await Promise.all([
    runGit(worktree, ['diff', ...PINNED_DIFF_OPTIONS, '--find-renames', '--numstat', '-z', from, to, '--']),
    streamGit(worktree, ['diff', ...PINNED_DIFF_OPTIONS, '--find-renames', '--binary', '--full-index', '--unified=3', '--inter-hunk-context=0', from, to, '--'], {
      onStdout: (chunk) => patch.update(chunk),
    }),
  ]);
  const files = parseNumstat(stdoutFields(numstat));
  return {
    files_changed: files.length,
    insertions: files.reduce((sum, file) => sum + (file.insertions ?? 0), 0),
    deletions: files.reduce((sum, file) => sum + (file.deletions ?? 0), 0),
    files,
    diff_digest: `sha256:${patch.digest('hex')}`,
  };
}

// `-z` numstat: `ins\tdel\tpath` NUL, or for a rename `ins\tdel\t` NUL `old` NUL `new` NUL; `-` counts mean binary.
function parseNumstat(fields: readonly string[]): DiffFileSummary[] {
  const files: DiffFileSummary[] = [];
  for (let index = 0; index < fields.length; index += 1) {
    const field = fields[index] ?? '';
    const firstTab = field.indexOf('\t');
    const secondTab = field.indexOf('\t', firstTab + 1);
    const count = (text: string): number | null => (text === '-' ? null : Number(text));
    const insertions = count(field.slice(0, firstTab));
    const deletions = count(field.slice(firstTab + 1, secondTab));
    const path = field.slice(secondTab + 1);
    if (path !== '') {
      files.push({ path, previous_path: null, insertions, deletions });
      continue;
    }
    files.push({ path: fields[index + 2] ?? '', previous_path: fields[index + 1] ?? '', insertions, deletions });
    index += 2;
  }
  return files;
}

// git diff --check exits 2 when it finds whitespace errors or conflict markers.
const PROBLEMS_FOUND = 2;
// What of `--check`'s report is kept (it quotes every offending line): as much as a verifier's output.
const MAX_CHECK_OUTPUT_BYTES = 8 * 1024 * 1024;

export interface DiffCheckResult {
  readonly ok: boolean;
  readonly exit_code: number;
  /** What git printed (its first MAX_CHECK_OUTPUT_BYTES), for private storage only: it quotes source lines. */
  readonly output: string;
  /** sha256 of `output`'s bytes: what public evidence carries instead. */
  readonly output_digest: Digest;
  readonly duration_ms: number;
}

/** `git diff --check base head`: the built-in verifier step that always runs (decisions D7). */
export async function diffCheck(worktree: string | RepositoryLocation, base: string, head: string): Promise<DiffCheckResult> {
  const [from, to] = await Promise.all([requireCommit(worktree, base), requireCommit(worktree, head)]);
  const started = performance.now();
  const kept = firstBytes(MAX_CHECK_OUTPUT_BYTES);
  const run = await streamGit(worktree, ['diff', ...PINNED_DIFF_OPTIONS, '--check', from, to, '--'], {
    okExitCodes: [0, PROBLEMS_FOUND],
    onStdout: kept.add,
  });
  const duration = Math.round(performance.now() - started);
  const output = kept.bytes();
  return {
    ok: run.exitCode === 0,
    exit_code: run.exitCode,
    output: output.toString('utf8'),
    output_digest: sha256Digest(output),
    duration_ms: duration,
  };
}

export interface DiffText {
  /** The unified diff as UTF-8 text, cut at a line boundary when it exceeds the limit. */
  readonly text: string;
  readonly truncated: boolean;
  /** The size of the whole diff in bytes, whether or not it was cut. */
  readonly bytes: number;
}

/**
 * The unified diff from `base` to `head` for a person to read (binary files are named, not
 * encoded; renames detected). It is bounded: a viewer cannot render megabytes of patch, and the
 * caller says when it was cut.
 */
export async function diffText(repo: string | RepositoryLocation, base: string, head: string, maxBytes: number): Promise<DiffText> {
  const [from, to] = await Promise.all([requireCommit(repo, base), requireCommit(repo, head)]);
  // One byte past the limit says whether it was cut; the rest is counted, not kept.
  const kept = firstBytes(maxBytes + 1);
  await streamGit(repo, ['diff', ...PINNED_DIFF_OPTIONS, '--find-renames', '--unified=3', from, to, '--'], { onStdout: kept.add });
  const diff = kept.bytes();
  const bytes = kept.total();
  if (bytes <= maxBytes) return { text: diff.toString('utf8'), truncated: false, bytes };
  const cut = diff.lastIndexOf(0x0a, maxBytes - 1);
  return { text: diff.subarray(0, cut + 1).toString('utf8'), truncated: true, bytes };
}

/** Keeps the first `limit` bytes of a stream and counts all of them. */
function firstBytes(limit: number): { add: (chunk: Buffer) => void; bytes: () => Buffer; total: () => number } {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  return {
    add: (chunk) => {
      total += chunk.length;
      if (kept >= limit) return;
      const part = chunk.subarray(0, limit - kept);
      chunks.push(part);
      kept += part.length;
    },
    bytes: () => Buffer.concat(chunks, kept),
    total: () => total,
  };
}
