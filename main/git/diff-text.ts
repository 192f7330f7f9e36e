import { PINNED_DIFF_OPTIONS } from './diff-options';
import { requireCommit } from './rev-parse';
import { runGit } from './run-git';

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
export async function diffText(repo: string, base: string, head: string, maxBytes: number): Promise<DiffText> {
  const [from, to] = await Promise.all([requireCommit(repo, base), requireCommit(repo, head)]);
  const run = await runGit(repo, ['diff', ...PINNED_DIFF_OPTIONS, '--find-renames', '--unified=3', from, to, '--']);
  const bytes = run.stdout.length;
  if (bytes <= maxBytes) return { text: run.stdout.toString('utf8'), truncated: false, bytes };
  const cut = run.stdout.lastIndexOf(0x0a, maxBytes - 1);
  return { text: run.stdout.subarray(0, cut + 1).toString('utf8'), truncated: true, bytes };
}
