import type { Command } from 'commander';
import { openOrchestratorContext } from '../../../host/open-context';
import { labelledStatus, stopFork } from '../../../orchestrator';
import { printJson, type Io } from '../../io/output';
import { renderForkStatus } from '../render-fork';
import { progress, type JsonOption } from './fork-output';

/** `citadel fork stop FORK_ID [BRANCH_ID]`: end running process groups; the collection records the outcome. */
export function stopCommand(fork: Command, io: Io): void {
  fork
    .command('stop')
    .description("terminate a running branch's process group, or stop a pending one before its launch (every running or pending branch without BRANCH_ID)")
    .argument('<fork_id>')
    .argument('[branch_id]')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, branchId: string | undefined, options: JsonOption) => {
      const ctx = await openOrchestratorContext({ events: progress(io, options.json === true) });
      const outcome = await stopFork(ctx, forkId, branchId);
      const status = await labelledStatus(ctx, outcome.record);
      if (options.json) printJson(io, { stopped: outcome.stopped, status });
      else {
        for (const s of outcome.stopped) io.stdout(`${s.branch_id}: process ${s.process_gone ? 'gone' : 'STILL RUNNING'} (${s.via})\n`);
        io.stdout(renderForkStatus(status));
      }
    });
}
