import type { Command } from 'commander';
import { openOrchestratorContext } from '../../../host/open-context';
import { labelledStatus, resumeFork } from '../../../orchestrator';
import type { Io } from '../../io/output';
import { printRecord, progress, type JsonOption } from './fork-output';

/** `citadel fork resume FORK_ID`: continue the recorded request and wait for it. */
export function resumeCommand(fork: Command, io: Io): void {
  fork
    .command('resume')
    .description('continue exactly the recorded request after a crash or a detached start')
    .argument('<fork_id>')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, options: JsonOption) => {
      const ctx = await openOrchestratorContext({ events: progress(io, options.json === true) });
      printRecord(io, await labelledStatus(ctx, await resumeFork(ctx, forkId, 'wait')), options.json === true);
    });
}
