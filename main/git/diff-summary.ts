import { sha256Digest } from '../../shared/digest';
import type { Digest } from '../../shared/digest';
import { PINNED_DIFF_OPTIONS } from './diff-options';
import { requireCommit } from './rev-parse';
import { runGit, stdoutFields } from './run-git';

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

/** Files, line counts and a digest of the change from `base` to `head` (renames detected). */
export async function diffSummary(worktree: string, base: string, head: string): Promise<DiffSummary> {
  const [from, to] = await Promise.all([requireCommit(worktree, base), requireCommit(worktree, head)]);
  const [numstat, patch] = await Promise.all([
    runGit(worktree, ['diff', ...PINNED_DIFF_OPTIONS, '--find-renames', '--numstat', '-z', from, to, '--']),
    runGit(worktree, ['diff', ...PINNED_DIFF_OPTIONS, '--find-renames', '--binary', '--full-index', '--unified=3', '--inter-hunk-context=0', from, to, '--']),
  ]);
  const files = parseNumstat(stdoutFields(numstat));
  return {
    files_changed: files.length,
    insertions: files.reduce((sum, file) => sum + (file.insertions ?? 0), 0),
    deletions: files.reduce((sum, file) => sum + (file.deletions ?? 0), 0),
    files,
    diff_digest: sha256Digest(patch.stdout),
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
