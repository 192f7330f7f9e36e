import type { Command } from 'commander';
import { CitadelError } from '../../../shared/errors';
import type { ForkEvent } from '../../../shared/fork/events';
import type { ForkRecord } from '../../../shared/fork/fork-record';
import { forkStatusOf } from '../../../shared/fork/fork-status';
import { loadExecutorFile } from '../../executors/load-executor-file';
import { cleanFork } from '../../orchestrator/clean-fork';
import { compareFork } from '../../orchestrator/compare-fork';
import { createFork, type ExecutorInput } from '../../orchestrator/create-fork';
import { driveFork } from '../../orchestrator/drive-fork';
import { landingInputFor } from '../../orchestrator/land-fork';
import { resumeFork } from '../../orchestrator/resume-fork';
import { selectBranch } from '../../orchestrator/select-branch';
import { land } from '../../landing/land';
import { landingChecks } from '../../landing/landing-checks';
import { buildProof } from '../../publish/build-proof';
import { buildReplay } from '../../publish/build-replay';
import { renderPublic, writePublic, type PublicArtifact } from '../../publish/export-public';
import { ProofReportSchema, ReplaySchema } from '../../../shared/publish/replay';
import { listForks } from '../../orchestrator/list-forks';
import { resolveBranch } from '../../orchestrator/resolve-branch';
import { stopFork } from '../../orchestrator/stop-fork';
import { addExecutorSelectionOptions, executorSelectionFrom } from '../executor-selection';
import { cliOrchestratorContext } from '../orchestrator-context';
import { printJson, type Io } from '../output';
import { renderComparison } from './render-comparison';
import { describeEvent, renderForkList, renderForkStatus, renderLandingChecks } from './render-fork';

interface JsonOption {
  json?: boolean;
}

/** `citadel fork …` (decisions D13): each action parses, calls one orchestrator function, renders. */
export function registerForkCommands(program: Command, io: Io): void {
  const fork = program.command('fork').description('run one objective through several executors and manage the result');
  const progress = (json: boolean) => (json ? () => undefined : (event: ForkEvent) => io.stderr(describeEvent(event)));

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
    .action(async (objective: string, options: { runtimes?: string; executors?: string; repo: string; workflow?: string; budgetSeconds?: number; maxAttempts?: number; detach?: boolean } & JsonOption) => {
      const selection = executorSelectionFrom(options);
      const json = options.json === true;
      const ctx = await cliOrchestratorContext({ events: progress(json) });
      const executors: ExecutorInput =
        selection.kind === 'runtimes' ? selection : { kind: 'executors', profiles: (await loadExecutorFile(selection.file)).executors };
      const created = await createFork(ctx, { objective, executors, repo: options.repo, workflowFile: options.workflow, budgetSeconds: options.budgetSeconds, maxAttempts: options.maxAttempts });
      if (created.repoDirty && !json) io.stderr('note: the target repository has uncommitted changes; they are not part of the fork, which starts from HEAD.\n');
      if (!json) io.stderr(`fork ${created.record.fork_id} created from ${created.record.base_revision.slice(0, 12)}\n`);
      const record = await driveFork(ctx, created.record.fork_id, options.detach ? 'none' : 'all');
      printRecord(io, record, json, { repo_dirty: created.repoDirty });
    });

  fork
    .command('status')
    .description('show one fork, or every fork')
    .argument('[fork_id]')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string | undefined, options: JsonOption) => {
      const ctx = await cliOrchestratorContext();
      if (forkId === undefined) {
        const forks = await listForks(ctx);
        if (options.json) printJson(io, { forks });
        else io.stdout(renderForkList(forks));
        return;
      }
      printRecord(io, await ctx.store.readRecord(forkId), options.json === true);
    });

  fork
    .command('resume')
    .description('continue exactly the recorded request after a crash or a detached start')
    .argument('<fork_id>')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, options: JsonOption) => {
      const ctx = await cliOrchestratorContext({ events: progress(options.json === true) });
      printRecord(io, await resumeFork(ctx, forkId), options.json === true);
    });

  fork
    .command('stop')
    .description("terminate a running branch's process group (every running branch without BRANCH_ID)")
    .argument('<fork_id>')
    .argument('[branch_id]')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, branchId: string | undefined, options: JsonOption) => {
      const ctx = await cliOrchestratorContext({ events: progress(options.json === true) });
      const outcome = await stopFork(ctx, forkId, branchId);
      if (options.json) printJson(io, { stopped: outcome.stopped, status: forkStatusOf(outcome.record) });
      else {
        for (const s of outcome.stopped) io.stdout(`${s.branch_id}: process ${s.process_gone ? 'gone' : 'STILL RUNNING'} (${s.via})\n`);
        io.stdout(renderForkStatus(forkStatusOf(outcome.record)));
      }
    });

  fork
    .command('resolve')
    .description('the explicit operator decision for a blocked branch')
    .argument('<fork_id>')
    .argument('<branch_id>')
    .option('--mark-failed', 'settle the branch as failed; its outcome stays unknown')
    .option('--retry', 'discard the attempt and run the branch again from the base revision')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, branchId: string, options: { markFailed?: boolean; retry?: boolean } & JsonOption) => {
      if (options.markFailed === options.retry) throw new CitadelError('USAGE_ERROR', 'give exactly one of --mark-failed and --retry');
      const ctx = await cliOrchestratorContext({ events: progress(options.json === true) });
      const resolved = await resolveBranch(ctx, forkId, branchId, options.retry ? 'retry' : 'mark-failed');
      printRecord(io, options.retry ? await driveFork(ctx, forkId, 'all') : resolved, options.json === true);
    });

  fork
    .command('compare')
    .description('re-verify every branch from disk and compare them; cost and speed never decide')
    .argument('<fork_id>')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, options: JsonOption) => {
      const comparison = await compareFork(await cliOrchestratorContext(), forkId);
      if (options.json) printJson(io, comparison);
      else io.stdout(renderComparison(comparison));
    });

  fork
    .command('select')
    .description('record the operator\'s selection: an immutable decision that does not touch git')
    .argument('<fork_id>')
    .argument('<branch_id>')
    .requiredOption('--reason <text>', 'why this branch (kept private; never exported)')
    .option('--actor <name>', 'who decides (default: the login name)')
    .option('--idempotency-key <key>', 'repeat-safe key (default: derived from branch, actor and reason)')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, branchId: string, options: { reason: string; actor?: string; idempotencyKey?: string } & JsonOption) => {
      const actor = options.actor ?? process.env.USER ?? process.env.LOGNAME ?? 'operator';
      const selection = await selectBranch(await cliOrchestratorContext(), forkId, { branchId, actor, reason: options.reason, idempotencyKey: options.idempotencyKey });
      if (options.json) printJson(io, { selection, git_touched: false });
      else io.stdout(`selected ${selection.branch_id} at fork revision ${selection.fork_revision} by ${selection.actor}\nNo git command ran: selection is not landing. Next: citadel fork land ${forkId}\n`);
    });

  fork
    .command('land')
    .description('without --confirm: check every precondition and print a confirmation token; with it: re-check and merge locally')
    .argument('<fork_id>')
    .option('--confirm <token>', 'the token printed by a plain `fork land`')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, options: { confirm?: string } & JsonOption) => {
      const ctx = await cliOrchestratorContext();
      const input = await landingInputFor(ctx, forkId);
      if (options.confirm !== undefined) {
        const result = await land(input, options.confirm);
        if (options.json) printJson(io, result);
        else io.stdout(`landed: merge commit ${result.merge_commit} (local merge only; nothing was pushed)\n`);
        return;
      }
      const { checks, token } = await landingChecks(input);
      if (options.json) printJson(io, { checks, token });
      else io.stdout(renderLandingChecks(forkId, checks, token));
    });

  fork
    .command('replay')
    .description('write the deterministic, redacted public replay of a fork')
    .argument('<fork_id>')
    .option('--output <file>', 'write to this file instead of stdout')
    .option('--json', 'errors as one JSON document (the replay itself is always JSON)')
    .action(async (forkId: string, options: { output?: string }) => {
      const artifact = await renderPublic(await buildReplay(await cliOrchestratorContext(), forkId), ReplaySchema);
      await emitArtifact(io, artifact, options.output);
    });

  fork
    .command('proof')
    .description('write the bounded proof report: verified counts, comparison outcome and the embedded replay')
    .argument('<fork_id>')
    .option('--output <file>', 'write to this file instead of stdout')
    .option('--json', 'errors as one JSON document (the report itself is always JSON)')
    .action(async (forkId: string, options: { output?: string }) => {
      const artifact = await renderPublic(await buildProof(await cliOrchestratorContext(), forkId), ProofReportSchema);
      await emitArtifact(io, artifact, options.output);
    });

  fork
    .command('clean')
    .description("remove the fork's worktrees and git branches (never its evidence)")
    .argument('<fork_id>')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, options: JsonOption) => {
      const ctx = await cliOrchestratorContext();
      const outcome = await cleanFork(ctx, forkId);
      if (options.json) printJson(io, outcome);
      else for (const b of outcome.branches) io.stdout(`${b.branch_id}: worktree ${b.worktree_removed ? 'removed' : 'already gone'}, branch ${b.branch_deleted ? 'deleted' : 'already gone'}\n`);
    });
}

function printRecord(io: Io, record: ForkRecord, json: boolean, extra: Record<string, unknown> = {}): void {
  const status = forkStatusOf(record);
  if (json) printJson(io, { ...status, ...extra });
  else io.stdout(renderForkStatus(status));
}

async function emitArtifact(io: Io, artifact: PublicArtifact, output: string | undefined): Promise<void> {
  if (output === undefined) {
    io.stdout(artifact.text);
    return;
  }
  await writePublic(artifact, output);
  printJson(io, { written: output, digest: artifact.digest });
}

function parseWholeNumber(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new CitadelError('USAGE_ERROR', `expected a whole number, got "${value}"`);
  return Number(value);
}
