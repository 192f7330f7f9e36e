import type { Command } from 'commander';
import { CitadelError } from '../../../../shared/errors';
import { openOrchestratorContext } from '../../../host/open-context';
import { startFork } from '../../../orchestrator';
import { addExecutorSelectionOptions, executorSelectionFrom } from '../../executor-selection';
import type { Io } from '../../output';
import { printRecord, progress, type JsonOption } from './fork-output';

interface StartOptions extends JsonOption {
  runtimes?: string;
  executors?: string;
  repo: string;
  workflow?: string;
  budgetSeconds?: number;
  maxAttempts?: number;
  detach?: boolean;
}

/** `citadel fork start OBJECTIVE`: freeze the contract, then run every executor (or only launch them, with --detach). */
export function startCommand(fork: Command, io: Io): void {
  addExecutorSelectionOptions(
    fork
      .command('start')
      .description('freeze the objective into a contract and run every executor in its own worktree')
      .argument('<objective>', 'the engineering objective'),
  )
    .option('--repo <dir>', 'target git repository', '.')
    .option('--workflow <file>', 'workflow file (steps, verifier, protected paths)')
    .option('--budget-seconds <n>', 'time budget per branch in seconds (default 1800)', parseWholeNumber)
    .option('--max-attempts <n>', 'attempts per branch, the first included; `fork resolve --retry` past it is refused (default 1)', parseWholeNumber)
    .option('--detach', 'return once every branch is launched')
    .option('--json', 'print exactly one JSON document')
    .action(async (objective: string, options: StartOptions) => {
      const selection = executorSelectionFrom(options);
      const json = options.json === true;
      const ctx = await openOrchestratorContext({ events: progress(io, json) });
      const started = await startFork(
        ctx,
        {
          objective,
          executors: selection.kind === 'runtimes' ? selection : { kind: 'executor-file', file: selection.file },
          repo: options.repo,
          workflowFile: options.workflow,
          budgetSeconds: options.budgetSeconds,
          maxAttempts: options.maxAttempts,
        },
        {
          collect: options.detach ? 'detach' : 'wait',
          onCreated: (created) => {
            if (json) return;
            if (created.repoDirty) io.stderr('note: the target repository has uncommitted changes; they are not part of the fork, which starts from HEAD.\n');
            io.stderr(`fork ${created.record.fork_id} created from ${created.record.base_revision.slice(0, 12)}\n`);
          },
        },
      );
      printRecord(io, started.record, json, { repo_dirty: started.repoDirty });
    });
}

function parseWholeNumber(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new CitadelError('USAGE_ERROR', `expected a whole number, got "${value}"`);
  return Number(value);
}
