import type { RepositoryFiles } from './repository-files';

const WORKFLOW_FILE = /^\.github\/workflows\/[^/]+\.ya?ml$/;
// A one-line `run:` (the common case); block scalars (`run: |`) are read line by line below it.
const RUN_LINE = /^\s*(?:-\s*)?run:\s*(.*)$/;

/**
 * Bounds on what a repository's CI can make `init` (and Mission Control's process, which proposes
 * too) read and keep: more workflow files, text or commands than a real project's CI has.
 */
export const CI_LIMITS = { files: 32, bytes: 4 * 1024 * 1024, commands: 500 } as const;

/** A command a CI workflow runs, and the workflow file that runs it. */
export interface CiCommand {
  readonly file: string;
  readonly command: string;
}

/**
 * The commands the repository's GitHub Actions workflows run, read as text: only a hint for the
 * operator (which test command the CI trusts), never a source of what Citadel runs. One pass over
 * each file: a block's lines are its commands and are not read again for a `run:` of their own.
 */
export async function ciCommands(files: RepositoryFiles): Promise<CiCommand[]> {
  const commands: CiCommand[] = [];
  let bytes = 0;
  for (const file of files.tracked.filter((entry) => WORKFLOW_FILE.test(entry)).slice(0, CI_LIMITS.files)) {
    const text = (await files.read(file)) ?? '';
    bytes += text.length;
    if (bytes > CI_LIMITS.bytes) break;
    const lines = text.split(/\r?\n/);
    const keep = (command: string): boolean => commands.push({ file, command }) < CI_LIMITS.commands;
    let i = 0;
    while (i < lines.length) {
      const line = lines[i] ?? '';
      i++;
      const run = RUN_LINE.exec(line);
      if (run === null) continue;
      const value = (run[1] ?? '').trim();
      if (value !== '' && !/^[|>][+-]?$/.test(value)) {
        if (!keep(unquote(value))) return commands;
        continue;
      }
      const indent = indentOf(line);
      for (; i < lines.length; i++) {
        const body = lines[i] ?? '';
        const trimmed = body.trim();
        if (trimmed === '') continue;
        if (indentOf(body) <= indent) break;
        if (!keep(trimmed)) return commands;
      }
    }
  }
  return commands;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;

const unquote = (value: string): string => (/^(["']).*\1$/.test(value) ? value.slice(1, -1) : value);
