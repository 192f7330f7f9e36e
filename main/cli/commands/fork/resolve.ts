import type { Command } from 'commander';
import { CitadelError } from '../../../../shared/errors';
import { openOrchestratorContext } from '../../../host/open-context';
import { labelledStatus, resolveBranch } from '../../../orchestrator';
import type { Io } from '../../io/output';
import { printRecord, progress, type JsonOption } from './fork-output';

/** `citadel fork resolve FORK_ID BRANCH_ID --mark-failed|--retry`: a retry runs the fresh attempt and waits for it. */
export function resolveCommand(fork: Command, io: Io): void {
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
      const ctx = await openOrchestratorContext({ events: progress(io, options.json === true) });
      printRecord(io, await labelledStatus(ctx, await resolveBranch(ctx, forkId, branchId, options.retry ? 'retry' : 'mark-failed', 'wait')), options.json === true);
    });
}
