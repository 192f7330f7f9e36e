import type { Command } from 'commander';
import { CitadelError } from '../../../../shared/errors';
import { ContainmentChoiceSchema, type ContainmentChoice } from '../../../../shared/fork/containment-facts';
import { DigestSchema, type Digest } from '../../../../shared/digest';
import { describeIncludeList } from '../../../../shared/fork/include-confirmation';
import { openOrchestratorContext } from '../../../host/open-context';
import { labelledStatus, startFork } from '../../../orchestrator';
import { addExecutorSelectionOptions, executorSelectionFrom, optionalExecutorSelection } from './executor-selection';
import { parseParentRef, type ParentRef } from '../../../../shared/fork/lineage';
import type { Io } from '../../io/output';
import { printRecord, progress, type JsonOption } from './fork-output';

interface StartOptions extends JsonOption {
  from?: string;
  runtimes?: string;
  executors?: string;
  repo: string;
  workflow?: string;
  budgetSeconds?: number;
  maxAttempts?: number;
  budgetTokens?: number;
  detach?: boolean;
  containment: ContainmentChoice;
  includeConfirmed?: true | Digest;
  workflowConfirmed?: true | Digest;
}

/** `citadel fork start OBJECTIVE`: freeze the contract, then run every executor (or only launch them, with --detach). */
export function startCommand(fork: Command, io: Io): void {
  addExecutorSelectionOptions(
    fork
      .command('start')
      .description('freeze the objective into a contract and run every executor in its own worktree')
      .argument('<objective>', 'the engineering objective'),
  )
    .option('--from <fork/branch>', "continue from a branch as a new fork (FORK_ID/BRANCH_ID): it starts from that branch's result commit, in its repository, with its executors, workflow and budget unless named here")
    .option('--repo <dir>', 'target git repository (a follow-up: its parent\'s)', '.')
    .option('--workflow <file>', 'workflow file (steps, verifier, protected paths)')
    .option('--budget-seconds <n>', 'time budget per branch in seconds (default 1800)', parseWholeNumber)
    .option('--budget-tokens <n>', 'input plus output tokens each branch may spend through its provider gateway; past it the gateway refuses and the branch fails BUDGET_EXCEEDED (default: no limit)', parseWholeNumber)
    .option('--max-attempts <n>', 'attempts per branch, the first included; `fork resolve --retry` past it is refused (default 1)', parseWholeNumber)
    .option(
      '--containment <mode>',
      "auto: every executor runs inside this platform's OS sandbox, or the start is refused (SANDBOX_UNAVAILABLE); runtime-only: WEAKER, only each vendor CLI's own permission mode, recorded in the contract",
      parseContainment,
      'auto',
    )
    .option(
      '--include-confirmed [digest]',
      "confirm the ignored files the repository's .worktreeinclude copies into every worktree (a start without it lists them, with the digest that confirms exactly that list); kept for this repository until the list changes",
      digestOption('--include-confirmed', "the list's digest"),
    )
    .option(
      '--workflow-confirmed [digest]',
      "confirm the repository's own .citadel/workflow.json, used when no --workflow is named (a start without it prints the setup commands, verifier and protected paths it would use, with the digest that confirms exactly that file); kept for this repository until the file changes",
      digestOption('--workflow-confirmed', "the workflow file's digest"),
    )
    .option('--detach', 'return once every branch is launched')
    .option('--json', 'print exactly one JSON document')
    .action(async (objective: string, options: StartOptions, command: Command) => {
      const from = options.from === undefined ? undefined : parentRefOption(options.from);
      const selection = from === undefined ? executorSelectionFrom(options) : optionalExecutorSelection(options);
      // A follow-up lands in its parent's repository: --repo is checked against it only when given.
      const repo = from !== undefined && command.getOptionValueSource('repo') === 'default' ? undefined : options.repo;
      const json = options.json === true;
      const ctx = await openOrchestratorContext({ events: progress(io, json) });
      const started = await startFork(
        ctx,
        {
          objective,
          executors: selection === null ? undefined : selection.kind === 'runtimes' ? selection : { kind: 'executor-file', file: selection.file },
          repo,
          from,
          workflowFile: options.workflow,
          budgetSeconds: options.budgetSeconds,
          maxAttempts: options.maxAttempts,
          budgetTokens: options.budgetTokens,
          containment: options.containment,
          includeConfirmed: options.includeConfirmed === true ? 'current-list' : options.includeConfirmed,
          workflowConfirmed: options.workflowConfirmed === true ? 'current-file' : options.workflowConfirmed,
        },
        {
          collect: options.detach ? 'detach' : 'wait',
          onCreated: (created) => {
            if (json) return;
            if (options.containment === 'runtime-only') io.stderr('warning: --containment runtime-only: no OS sandbox; each executor is held only by its vendor CLI\'s own permission mode.\n');
            if (created.repoDirty) io.stderr(`note: the target repository has uncommitted changes; they are not part of the fork, which starts from ${from === undefined ? 'HEAD' : "the parent branch's result"}.\n`);
            if (created.workflowFoundInRepository !== null) io.stderr(`workflow: ${created.workflowFoundInRepository} (found in the repository; --workflow names another)\n`);
            if (created.worktreeInclude.length > 0) io.stderr(`note: copied into each worktree from .worktreeinclude: ${describeIncludeList(created.worktreeInclude)}\n`);
            const continues = from === undefined ? '' : ` (continuing ${from.fork_id}/${from.branch_id})`;
            io.stderr(`fork ${created.record.fork_id} created from ${created.record.base_revision.slice(0, 12)}${continues}\n`);
          },
        },
      );
      printRecord(io, await labelledStatus(ctx, started.record), json, {
        repo_dirty: started.repoDirty,
        worktree_include: started.worktreeInclude,
        workflow_found_in_repository: started.workflowFoundInRepository,
      });
    });
}

function parseWholeNumber(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new CitadelError('USAGE_ERROR', `expected a whole number, got "${value}"`);
  return Number(value);
}

function digestOption(flag: string, what: string): (value: string) => Digest {
  return (value) => {
    const parsed = DigestSchema.safeParse(value);
    if (!parsed.success) {
      // Commander gives an optional value the next word, so a flag written before OBJECTIVE takes it.
      throw new CitadelError('USAGE_ERROR', `${flag} takes ${what} (sha256:…) that a refused start printed, or nothing; got "${value}". Put OBJECTIVE before ${flag}, or write ${flag}=DIGEST`);
    }
    return parsed.data;
  };
}

function parentRefOption(value: string): ParentRef {
  const parsed = parseParentRef(value);
  if (parsed === null) throw new CitadelError('USAGE_ERROR', `--from takes FORK_ID/BRANCH_ID (as fork status shows them), got "${value}"`);
  return parsed;
}

function parseContainment(value: string): ContainmentChoice {
  const parsed = ContainmentChoiceSchema.safeParse(value);
  if (!parsed.success) throw new CitadelError('USAGE_ERROR', `--containment is auto or runtime-only, got "${value}"`);
  return parsed.data;
}
