/**
 * pip's options that choose where packages come from, read as pip reads them: on its command line
 * through optparse (a unique prefix of a long option is that option, `--opt=value`, short options
 * clustered as in `-Ui URL` or `-iURL`), and in requirements files line by line as pip's req_file.py
 * does (Python's line breaks, `\` joins without a space, comments, the options after the
 * requirement split as shlex does). Where pip could read more than one way, every reading is kept:
 * a check over these refuses too much rather than too little.
 */

/** What an option names: an index (or a page of links), or a requirements file pip reads next. */
export type PipOptionKind = 'index' | 'file';

export interface PipOption {
  /** The option as pip resolves it, e.g. `--extra-index-url`. */
  readonly option: string;
  /** How it was written, for the refusal (e.g. `--extra-index`). */
  readonly written: string;
  readonly value: string;
  readonly kind: PipOptionKind;
}

const LONG: Readonly<Record<string, PipOptionKind>> = {
  '--index-url': 'index',
  '--extra-index-url': 'index',
  '--find-links': 'index',
  '--requirement': 'file',
  '--constraint': 'file',
};
const SHORT: Readonly<Record<string, string>> = { i: '--index-url', f: '--find-links', r: '--requirement', c: '--constraint' };

/**
 * The index and file options among `tokens` (argv, or a requirements line's options after shlex).
 * Every token is read as a possible option, also one another option took as its value: optparse
 * would not, but an option pip does not know of here must not hide the next one.
 */
export function pipOptions(tokens: readonly string[]): PipOption[] {
  const found: PipOption[] = [];
  for (const [at, token] of tokens.entries()) {
    const next = tokens[at + 1] ?? '';
    if (token.startsWith('--')) {
      const equals = token.indexOf('=');
      const written = equals === -1 ? token : token.slice(0, equals);
      // optparse takes a unique prefix as the option; a prefix of two options is an error pip stops on.
      const option = written.length > 2 ? Object.keys(LONG).find((name) => name.startsWith(written)) : undefined;
      if (option !== undefined) found.push({ option, written, value: equals === -1 ? next : token.slice(equals + 1), kind: LONG[option] ?? 'index' });
    } else if (/^-[^-]/.test(token)) {
      // A cluster of short options: the first that takes a value takes the rest of the token, or the next one.
      const cluster = token.slice(1);
      const index = [...cluster].findIndex((char) => Object.hasOwn(SHORT, char));
      if (index === -1) continue;
      const option = SHORT[cluster[index] ?? ''] ?? '--index-url';
      const rest = cluster.slice(index + 1);
      found.push({ option, written: `-${cluster[index] ?? ''}`, value: rest === '' ? next : rest, kind: LONG[option] ?? 'index' });
    }
  }
  return found;
}

/** Python's str.splitlines() separators, which pip splits a requirements file on. */
// eslint-disable-next-line no-control-regex
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;
/** Python's whitespace (str.isspace), which pip's comment pattern and strip() use: JavaScript's \s differs. */
const SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const COMMENT = new RegExp(`(^|${SPACE}+)#.*$`, 's');
const COMMENT_LINE = new RegExp(`^(${SPACE}+)?#`);
const STRIP = new RegExp(`^${SPACE}+|${SPACE}+$`, 'g');

/** A requirements file's logical lines as pip's preprocess() makes them, with the number of each one's first line. */
export function requirementLines(text: string): [number, string][] {
  const joined: [number, string][] = [];
  let pending: string[] = [];
  let start = 0;
  for (const [index, raw] of text.split(LINE_BREAK).entries()) {
    const comment = COMMENT_LINE.test(raw);
    if (!raw.endsWith('\\') || comment) {
      const line = comment ? ` ${raw}` : raw;
      if (pending.length > 0) joined.push([start, [...pending, line].join('')]);
      else joined.push([index + 1, line]);
      pending = [];
    } else {
      if (pending.length === 0) start = index + 1;
      pending.push(raw.replace(/^\\+|\\+$/g, ''));
    }
  }
  if (pending.length > 0) joined.push([start, pending.join('')]);
  return joined.flatMap(([line, text]): [number, string][] => {
    const kept = text.replace(COMMENT, '').replace(STRIP, '');
    return kept === '' ? [] : [[line, kept]];
  });
}

/**
 * The options part of a requirements line split as pip does (req_file.py break_args_options, then
 * shlex.split), or null when shlex could not split it (pip stops on such a line).
 */
export function requirementLineOptions(line: string): string[] | null {
  const tokens = line.split(' ');
  const first = tokens.findIndex((token) => token.startsWith('-'));
  return first === -1 ? [] : shlexSplit(tokens.slice(first).join(' '));
}

/** Python's shlex.split (POSIX mode, no comments): quotes and backslashes as a POSIX shell reads them. */
function shlexSplit(text: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  let quote: '"' | "'" | null = null;
  for (let at = 0; at < text.length; at++) {
    const char = text[at] ?? '';
    if (quote === "'") {
      if (char === "'") quote = null;
      else word = (word ?? '') + char;
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else if (char === '\\' && (text[at + 1] === '"' || text[at + 1] === '\\')) word = (word ?? '') + (text[++at] ?? '');
      else word = (word ?? '') + char;
    } else if (' \t\r\n'.includes(char)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= '';
    } else if (char === '\\') {
      if (at + 1 >= text.length) return null;
      word = (word ?? '') + (text[++at] ?? '');
    } else word = (word ?? '') + char;
  }
  if (quote !== null) return null;
  if (word !== null) words.push(word);
  return words;
}
