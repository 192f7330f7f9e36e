import type { RepositoryFiles } from './repository-files';

const WORKFLOW_FILE = /^\.github\/workflows\/[^/]+\.ya?ml$/;
// A one-line `run:` (the common case); block scalars (`run: |`) are read line by line below it.
const RUN_LINE = /^\s*(?:-\s*)?run:\s*(.*)$/;

/** A command a CI workflow runs, and the workflow file that runs it. */
export interface CiCommand {
  readonly file: string;
  readonly command: string;
}

/**
 * The commands the repository's GitHub Actions workflows run, read as text: only a hint for the
 * operator (which test command the CI trusts), never a source of what Citadel runs.
 */
export async function ciCommands(files: RepositoryFiles): Promise<CiCommand[]> {
  const commands: CiCommand[] = [];
  for (const file of files.tracked.filter((entry) => WORKFLOW_FILE.test(entry))) {
    const lines = ((await files.read(file)) ?? '').split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const run = RUN_LINE.exec(lines[i] ?? '');
      if (run === null) continue;
      const value = (run[1] ?? '').trim();
      if (value !== '' && !/^[|>][+-]?$/.test(value)) {
        commands.push({ file, command: unquote(value) });
        continue;
      }
      const indent = /^\s*/.exec(lines[i] ?? '')?.[0].length ?? 0;
      for (let j = i + 1; j < lines.length; j++) {
        const line = lines[j] ?? '';
        if (line.trim() === '') continue;
        if ((/^\s*/.exec(line)?.[0].length ?? 0) <= indent) break;
        commands.push({ file, command: line.trim() });
      }
    }
  }
  return commands;
}

const unquote = (value: string): string => (/^(["']).*\1$/.test(value) ? value.slice(1, -1) : value);
