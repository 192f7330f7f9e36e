import { quoteLines } from '../../../shared/quoted-lines';

/**
 * A branch's unified diff as lines an operator can point at (issue 32's "Ask for changes"): each
 * line with the file it belongs to and where it sits in the new version, read from the diff's own
 * `+++ b/…` and `@@ -a,b +c,d @@` headers. Pure: the diff is untrusted text and is only read.
 */

export type DiffLineKind = 'added' | 'removed' | 'context';

export interface DiffLine {
  readonly kind: DiffLineKind;
  /** The line's text without its diff marker. */
  readonly text: string;
  /** Its number in the old version; null for an added line. */
  readonly oldLine: number | null;
  /**
   * Where it is in the new version: its own number, or for a removed line the number of the line
   * that now stands where it was (the next line of the new version).
   */
  readonly newLine: number;
}

export interface DiffHunk {
  /** The `@@ … @@` line as written, for display. */
  readonly header: string;
  readonly lines: readonly DiffLine[];
}

export interface DiffFile {
  /** The file's path in the new version (`+++ b/…`), or its old path when it was deleted. */
  readonly path: string;
  readonly deleted: boolean;
  readonly hunks: readonly DiffHunk[];
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The files of a unified diff (git's format), each with its hunks; anything it cannot read as a hunk line is skipped. */
export function parseDiffLines(diffText: string): DiffFile[] {
  const files: { path: string; deleted: boolean; hunks: { header: string; lines: DiffLine[] }[] }[] = [];
  let oldPath: string | null = null;
  let file: (typeof files)[number] | null = null;
  let hunk: { header: string; lines: DiffLine[] } | null = null;
  let oldNext = 0;
  let newNext = 0;
  // Lines left in the hunk on each side: a hunk line is read only while its header says one is due.
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of diffText.split('\n')) {
    if (hunk !== null && (oldLeft > 0 || newLeft > 0)) {
      const marker = line[0];
      const text = line.slice(1);
      if (marker === ' ' || (marker === undefined && line === '')) {
        hunk.lines.push({ kind: 'context', text, oldLine: oldNext++, newLine: newNext++ });
        oldLeft--;
        newLeft--;
        continue;
      }
      if (marker === '-') {
        hunk.lines.push({ kind: 'removed', text, oldLine: oldNext++, newLine: newNext });
        oldLeft--;
        continue;
      }
      if (marker === '+') {
        hunk.lines.push({ kind: 'added', text, oldLine: null, newLine: newNext++ });
        newLeft--;
        continue;
      }
      if (marker === '\\') continue;
      hunk = null;
    }
    if (line.startsWith('\\')) continue;
    if (line.startsWith('diff --git ')) {
      file = null;
      hunk = null;
      oldPath = null;
    } else if (line.startsWith('--- ')) {
      oldPath = pathOf(line.slice(4), 'a/');
    } else if (line.startsWith('+++ ')) {
      const newPath = pathOf(line.slice(4), 'b/');
      file = { path: newPath ?? oldPath ?? '', deleted: newPath === null, hunks: [] };
      files.push(file);
      hunk = null;
    } else if (file !== null) {
      const header = HUNK.exec(line);
      if (header === null) continue;
      hunk = { header: line, lines: [] };
      file.hunks.push(hunk);
      oldNext = Number(header[1]);
      oldLeft = header[2] === undefined ? 1 : Number(header[2]);
      newNext = Number(header[3]);
      newLeft = header[4] === undefined ? 1 : Number(header[4]);
      // A side with no lines (`-0,0`, a new file) names the line before the hunk; its first line is the next.
      if (oldLeft === 0) oldNext++;
      if (newLeft === 0) newNext++;
    }
  }
  return files.filter((f) => f.path !== '');
}

/** `a/src/x.js` → `src/x.js`; `/dev/null` → null. Tab-separated timestamps (non-git diffs) and git's quoting are dropped. */
function pathOf(field: string, prefix: string): string | null {
  let name = field.split('\t')[0] ?? '';
  if (name.startsWith('"') && name.endsWith('"') && name.length >= 2) name = name.slice(1, -1).replace(/\\(["\\])/g, '$1');
  if (name === '/dev/null') return null;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** A comment on lines of one file: where it is (new-version line numbers) and the lines it quotes. */
export interface LineComment {
  readonly path: string;
  readonly lines: readonly DiffLine[];
  readonly text: string;
}

/** `src/sum.js:2` or `src/sum.js:2-4`: the file and the new-version lines a selection covers. */
export function locationOf(path: string, lines: readonly DiffLine[]): string {
  const numbers = lines.map((l) => l.newLine);
  if (numbers.length === 0) return path;
  const first = Math.min(...numbers);
  const last = Math.max(...numbers);
  return first === last ? `${path}:${first}` : `${path}:${first}-${last}`;
}

const MARKERS: Readonly<Record<DiffLineKind, string>> = { added: '+', removed: '-', context: ' ' };

/** The most quoted lines per comment: the location already says where a longer selection is. */
export const MAX_QUOTED_LINES = 12;

/** The most characters of one quoted diff line (a minified line would otherwise fill the 64 KiB objective). */
const MAX_QUOTED_CHARS = 300;

/**
 * The follow-up objective "Ask for changes" proposes: each comment as `file:line: comment`, then the
 * lines it was made on, quoted with their diff markers (at most MAX_QUOTED_LINES of them).
 */
export function composeObjective(comments: readonly LineComment[]): string {
  return comments
    .map((comment) => {
      // The lines are the agent's: each is quoted whole (no line break of it leaves the quote) and cut, so it cannot pose as a comment or fill the objective.
      const quoted = comment.lines.slice(0, MAX_QUOTED_LINES).flatMap((l) => quoteLines(`${MARKERS[l.kind]}${l.text}`, '> ', MAX_QUOTED_CHARS));
      const more = comment.lines.length - MAX_QUOTED_LINES;
      if (more > 0) quoted.push(`> … (${more} more ${more === 1 ? 'line' : 'lines'})`);
      return [`${locationOf(comment.path, comment.lines)}: ${comment.text.trim()}`, ...quoted].join('\n');
    })
    .join('\n\n');
}
