import type { Command } from 'commander';
import { openOrchestratorContext } from '../../../host/open-context';
import { forkStatus, listForks } from '../../../orchestrator';
import { printJson, type Io } from '../../output';
import { renderForkList } from '../render-fork';
import { printRecord, type JsonOption } from './fork-output';

/** `citadel fork status [FORK_ID]`: one fork, or every fork. */
export function statusCommand(fork: Command, io: Io): void {
  fork
    .command('status')
    .description('show one fork, or every fork')
    .argument('[fork_id]')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string | undefined, options: JsonOption) => {
      const ctx = await openOrchestratorContext();
      if (forkId === undefined) {
        const forks = await listForks(ctx);
        if (options.json) printJson(io, { forks });
        else io.stdout(renderForkList(forks));
        return;
      }
      printRecord(io, await forkStatus(ctx, forkId), options.json === true);
    });
}
