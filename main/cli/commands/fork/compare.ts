import type { Command } from 'commander';
import { openOrchestratorContext } from '../../../host/open-context';
import { compareFork } from '../../../orchestrator';
import { printJson, type Io } from '../../io/output';
import { renderComparison } from '../render-comparison';
import type { JsonOption } from './fork-output';

/** `citadel fork compare FORK_ID`: fresh re-verification, then the comparison. */
export function compareCommand(fork: Command, io: Io): void {
  fork
    .command('compare')
    .description('re-verify every branch from disk and compare them; cost and speed never decide')
    .argument('<fork_id>')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, options: JsonOption) => {
      const comparison = await compareFork(await openOrchestratorContext(), forkId);
      if (options.json) printJson(io, comparison);
      else io.stdout(renderComparison(comparison));
    });
}
