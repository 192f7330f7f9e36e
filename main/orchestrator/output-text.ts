import type { OutputLogId, OutputText } from '../../shared/fork/branch-output';
import { TERMINAL_CONTROLS } from '../../shared/terminal-controls';
import { readTail } from '../store/read-bounded-text';
import { secretLike } from './live-redaction';

/** How much of a log's end is read: at most `bytes`, and of those at most `lines` (null: every line). */
export interface OutputBound {
  readonly bytes: number;
  readonly lines: number | null;
}

export const HIDDEN_LINE = '[citadel: this line is hidden: it looks like it holds a secret]';

// Terminal codes are what these match: CSI (colours, cursor moves), OSC (titles, links) and two-character
// escapes, each also in its 8-bit form (U+009B CSI, U+009D OSC, U+009C its terminator).
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCE = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[@-Z\\-_]/g;

/**
 * The end of one kept log as the operator reads it: never through a symlink, never more than the
 * bound; a line its start was cut from is dropped (kept when it is the only one). Each line is
 * shown as a terminal would leave it (after its last carriage return, without colour or control
 * codes), then judged by the live trail's secret rules: one that looks like it holds a secret is
 * replaced whole. A log that is missing or not a regular file is absent, never an error.
 */
export async function keptOutput(file: string, log: OutputLogId, bound: OutputBound): Promise<OutputText> {
  const tail = await readTail(file, bound.bytes);
  if (!tail.ok) return { log, present: false, text: '', truncated: false, stored_bytes: null, hidden_lines: 0 };
  let lines = tail.bytes.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  let truncated = tail.cut;
  if (tail.cut && lines.length > 1) lines = lines.slice(1);
  if (bound.lines !== null && lines.length > bound.lines) {
    lines = lines.slice(-bound.lines);
    truncated = true;
  }
  const { text, hidden_lines } = await shownLines(lines);
  return { log, present: true, text, truncated, stored_bytes: tail.size, hidden_lines };
}

/** Output kept elsewhere (a failed setup step's tail in its setup record) shown by the same rules, line by line. */
export async function redactedOutput(output: string): Promise<string> {
  return (await shownLines(output.split('\n'))).text;
}

async function shownLines(lines: readonly string[]): Promise<{ text: string; hidden_lines: number }> {
  const shown = lines.map(terminalLine);
  const hidden = await secretLike(shown);
  return { text: shown.map((line, i) => (hidden[i] === true ? HIDDEN_LINE : line)).join('\n'), hidden_lines: hidden.filter(Boolean).length };
}

function terminalLine(raw: string): string {
  const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  return line.slice(line.lastIndexOf('\r') + 1).replace(ESCAPE_SEQUENCE, '').replace(TERMINAL_CONTROLS, '');
}
