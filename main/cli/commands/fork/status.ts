import type { Command } from 'commander';
import { openOrchestratorContext } from '../../../host/open-context';
import { egressRefusals, forkContainment, forkStatus, labelledStatus, listForks, setupFailures } from '../../../orchestrator';
import { printJson, type Io } from '../../io/output';
import { renderForkList, renderForkStatus } from '../render-fork';
import type { JsonOption } from './fork-output';

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
      const status = await labelledStatus(ctx, await forkStatus(ctx, forkId));
      const containment = await forkContainment(ctx, forkId);
      const setup = await setupFailures(ctx, forkId);
      const refusals = await egressRefusals(ctx, forkId);
      const extra = { ...(Object.keys(setup).length === 0 ? {} : { setup_failures: setup }), ...(Object.keys(refusals).length === 0 ? {} : { egress_refusals: refusals }) };
      if (options.json) printJson(io, { ...status, containment, ...extra });
      else io.stdout(renderForkStatus(status, containment, setup, refusals));
    });
}
