import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { vi } from 'vitest';
import { runCli } from '../../main/cli/program';

/**
 * Issue 30 item 4: the commands the README and docs/*.md show are checked against the real CLI.
 *
 * - A `citadel …` line in a fenced code block is an invocation: it is parsed by the real commander
 *   program (`runCli`, built exactly as the bin builds it) with every action replaced by a recorder,
 *   so unknown commands and options, missing or extra arguments and option values the parsers
 *   refuse all fail, and nothing runs. Placeholders (`FORK_ID`, `<dir>`) are ordinary values.
 * - A synopsis line (`[--json]`, `(a | b)`, `…`) and a `citadel …` span in prose are references:
 *   each subcommand they name must exist, and each `--option` must be one of that command's.
 * - `npm run X`, `npm test` and `npm start` must name a script in package.json.
 */

export interface DocProblem {
  readonly file: string;
  readonly line: number;
  readonly command: string;
  readonly problem: string;
}

/** One command a doc shows, where it shows it. */
interface Shown {
  readonly line: number;
  readonly text: string;
  readonly kind: 'invocation' | 'reference';
}

const CITADEL = /^(?:\$ )?(?:citadel|node out\/cli\/citadel\.mjs)(?=\s|$)/;
const NPM = /^(?:\$ )?npm\s/;
const SYNOPSIS_MARK = /[[\]()…]|\S\|\S/;

/** Every shown command of one markdown document: fenced lines (with their continuations) and inline spans. */
export function shownCommands(markdown: string): Shown[] {
  const lines = markdown.split('\n');
  const shown: Shown[] = [];
  let fenced = false;
  const prose: { line: number; text: string }[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) {
      prose.push({ line: i + 1, text: line });
      continue;
    }
    let text = line.trim();
    if (!CITADEL.test(text) && !NPM.test(text)) continue;
    const start = i + 1;
    // A shell continuation (`\`) or a synopsis wrapped onto indented `[`/`(`/`--` lines.
    while (i + 1 < lines.length && (text.endsWith('\\') || /^\s+[[(-]/.test(lines[i + 1] ?? ''))) {
      text = `${text.replace(/\\$/, '')} ${(lines[i + 1] ?? '').trim()}`;
      i += 1;
    }
    shown.push({ line: start, text, kind: 'invocation' });
  }
  // Inline code spans may wrap across lines of a paragraph; fenced blocks are already out.
  const joined = prose.map((p) => p.text).join('\n');
  const lineAt = (offset: number): number => prose[joined.slice(0, offset).split('\n').length - 1]?.line ?? 0;
  for (const match of joined.matchAll(/`([^`]+)`/g)) {
    const text = (match[1] ?? '').replace(/\s+/g, ' ').trim();
    if (CITADEL.test(text) || NPM.test(text)) shown.push({ line: lineAt(match.index), text, kind: 'reference' });
  }
  return shown;
}

/** Shell words: quotes group, a backslash escapes; enough for commands in docs. */
function words(text: string): string[] {
  const out: string[] = [];
  let current: string | null = null;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] ?? '';
    if (quote) {
      if (c === quote) quote = null;
      else current = (current ?? '') + c;
    } else if (c === '"' || c === "'") {
      quote = c;
      current ??= '';
    } else if (c === '\\' && i + 1 < text.length) {
      current = (current ?? '') + (text[i + 1] ?? '');
      i += 1;
    } else if (/\s/.test(c)) {
      if (current !== null) out.push(current);
      current = null;
    } else current = (current ?? '') + c;
  }
  if (current !== null) out.push(current);
  return out;
}

/** The shell pieces of one line: `a && b ; c`, each cut at a comment, a redirection or (outside a synopsis) a pipe. */
function segments(text: string, synopsis: boolean): string[][] {
  const withoutComment = text.replace(/(^|\s)#.*$/, '');
  const pieces: string[][] = [[]];
  for (const word of words(withoutComment)) {
    if (word === '&&' || word === ';') pieces.push([]);
    else pieces[pieces.length - 1]?.push(word);
  }
  return pieces
    .map((piece) => {
      const end = piece.findIndex((word) => /^(\d?>>?|<)/.test(word) || (!synopsis && word === '|'));
      return end === -1 ? piece : piece.slice(0, end);
    })
    .filter((piece) => piece.length > 0);
}

/** Checks documents against the real program; one recorder per checker, restored by `close`. */
export class DocCommandChecker {
  private readonly ran: Command[] = [];
  private root: Command | null = null;
  private readonly spy;
  private readonly scripts: Record<string, string>;

  constructor(repoRoot: string) {
    const original = Command.prototype.action;
    const ran = this.ran;
    const seen = (command: Command): void => {
      let top = command;
      while (top.parent) top = top.parent;
      this.root = top;
    };
    // Every action becomes a recorder: parsing is real, nothing runs.
    this.spy = vi.spyOn(Command.prototype, 'action').mockImplementation(function (this: Command) {
      seen(this);
      return original.call(this, () => {
        ran.push(this);
      });
    });
    this.scripts = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  }

  close(): void {
    this.spy.mockRestore();
  }

  async check(file: string, markdown: string): Promise<DocProblem[]> {
    const problems: DocProblem[] = [];
    for (const shown of shownCommands(markdown)) {
      const synopsis = shown.kind === 'reference' || SYNOPSIS_MARK.test(shown.text);
      for (const piece of segments(shown.text, synopsis)) {
        const report = (problem: string): void => void problems.push({ file, line: shown.line, command: piece.join(' '), problem });
        if (piece[0] === 'npm') this.checkNpm(piece, report);
        else if (piece[0] === 'citadel' || (piece[0] === 'node' && piece[1] === 'out/cli/citadel.mjs')) {
          const args = piece.slice(piece[0] === 'node' ? 2 : 1);
          if (synopsis) await this.checkReference(args, report);
          else await this.checkInvocation(args, report);
        }
      }
    }
    return problems;
  }

  private checkNpm(piece: string[], report: (problem: string) => void): void {
    const [, verb, script] = piece;
    const named = verb === 'run' || verb === 'run-script' ? script : verb === 'test' || verb === 'start' ? verb : undefined;
    if (named !== undefined && !(named in this.scripts)) report(`package.json has no script "${named}"`);
  }

  private async checkInvocation(args: string[], report: (problem: string) => void): Promise<void> {
    let stderr = '';
    this.ran.length = 0;
    const code = await runCli(args, { io: { stdout: () => undefined, stderr: (text) => void (stderr += text) }, version: '0.0.0-docs' });
    const help = args.includes('--help') || args.includes('-h');
    if (code !== 0) report(`does not parse (exit ${code}): ${stderr.split('\n')[0] ?? ''}`);
    else if (!help && this.ran.length !== 1) report('names a group of commands, not one command');
  }

  /** A synopsis or a mention: the subcommands exist (each of `a|b`), and every `--option` is theirs. */
  private async checkReference(args: string[], report: (problem: string) => void): Promise<void> {
    if (!this.root) await runCli(['--help'], { io: { stdout: () => undefined, stderr: () => undefined }, version: '0.0.0-docs' });
    const root = this.root;
    if (!root) throw new Error('the CLI program was never built');
    const plain = args.map((word) => word.replace(/[[\]()]/g, '')).filter((word) => word !== '' && word !== '|');
    let commands: Command[] = [root];
    let rest = plain;
    while (rest.length > 0 && commands.every((command) => command.commands.length > 0)) {
      const [word = '', ...after] = rest;
      if (word.startsWith('-') || word.includes('…')) break;
      const next: Command[] = [];
      for (const command of commands) {
        for (const name of word.split('|')) {
          const sub = command.commands.find((candidate) => candidate.name() === name);
          if (sub) next.push(sub);
          else report(`unknown command "${name}" under "${command.name()}"`);
        }
      }
      if (next.length === 0) return;
      commands = next;
      rest = after;
    }
    for (const word of rest) {
      const option = /^(--?[A-Za-z][\w-]*)/.exec(word)?.[1];
      if (option === undefined || option === '--help' || option === '-h') continue;
      for (const command of commands) {
        if (!command.options.some((known) => known.long === option || known.short === option)) {
          report(`"${command.name()}" has no option ${option}`);
        }
      }
    }
  }
}

/** README.md and every docs/*.md, as (repository-relative name, text). */
export function documents(repoRoot: string, names: readonly string[]): { file: string; text: string }[] {
  return names.filter((name) => existsSync(path.join(repoRoot, name))).map((file) => ({ file, text: readFileSync(path.join(repoRoot, file), 'utf8') }));
}
