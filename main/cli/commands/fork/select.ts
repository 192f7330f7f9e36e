import type { Command } from 'commander';
import { openOrchestratorContext } from '../../../host/open-context';
import { selectBranch } from '../../../orchestrator';
import { printJson, type Io } from '../../output';
import type { JsonOption } from './fork-output';

/** `citadel fork select FORK_ID BRANCH_ID --reason TEXT`: the recorded decision; no git runs. */
export function selectCommand(fork: Command, io: Io): void {
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
      const selection = await selectBranch(await openOrchestratorContext(), forkId, { branchId, actor, reason: options.reason, idempotencyKey: options.idempotencyKey });
      if (options.json) printJson(io, { selection, git_touched: false });
      else io.stdout(`selected ${selection.branch_id} at fork revision ${selection.fork_revision} by ${selection.actor}\nNo git command ran: selection is not landing. Next: citadel fork land ${forkId}\n`);
    });
}
