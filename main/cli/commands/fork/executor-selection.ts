import type { Command } from 'commander';
import { CitadelError } from '../../../../shared/errors';

/** How a fork names its executors: a legacy runtime list or an executor file, never both. */
export type ExecutorSelection = { kind: 'runtimes'; list: string } | { kind: 'executors'; file: string };

/** Adds the two mutually exclusive selection options to a command. */
export function addExecutorSelectionOptions(command: Command): Command {
  return command
    .option('--runtimes <list>', 'legacy comma-separated runtimes, e.g. claude,codex (schema 1 fork)')
    .option('--executors <file>', 'executor profile file (schema 2 fork); excludes --runtimes');
}

/**
 * The parser rule: exactly one of --runtimes and --executors. Checked before anything is planned
 * or created; a conflict is a usage error.
 */
export function executorSelectionFrom(options: { runtimes?: string | undefined; executors?: string | undefined }): ExecutorSelection {
  const selection = optionalExecutorSelection(options);
  if (selection === null) throw new CitadelError('EXECUTOR_SELECTION_MISSING', 'name the executors with --runtimes LIST or --executors FILE');
  return selection;
}

/** The same rule where naming none is allowed (a follow-up runs its parent's executors): null when neither is given. */
export function optionalExecutorSelection(options: { runtimes?: string | undefined; executors?: string | undefined }): ExecutorSelection | null {
  if (options.runtimes !== undefined && options.executors !== undefined) {
    throw new CitadelError('EXECUTOR_SELECTION_CONFLICT', '--runtimes and --executors are mutually exclusive; give one');
  }
  if (options.executors !== undefined) return { kind: 'executors', file: options.executors };
  if (options.runtimes !== undefined) return { kind: 'runtimes', list: options.runtimes };
  return null;
}
