import type { Command } from 'commander';
import { openOrchestratorContext } from '../../../host/open-context';
import { selectBranch } from '../../../orchestrator';
import { describeEvidence } from '../../../../shared/fork/selection-evidence';
import { printJson, type Io } from '../../io/output';
import type { JsonOption } from './fork-output';

/**
 * `citadel fork select FORK_ID BRANCH_ID --reason TEXT [--against-evidence]`: the recorded decision; no git runs.
 * The orchestrator decides what can be selected (shared/fork/selectability.ts): any comparable branch once every branch has settled.
 */
export function selectCommand(fork: Command, io: Io): void {
  fork
    .command('select')
    .description('record the operator\'s selection: an immutable decision that does not touch git')
    .argument('<fork_id>')
    .argument('<branch_id>')
    .requiredOption('--reason <text>', 'why this branch (kept private; never exported)')
    .option('--actor <name>', 'who decides (default: the login name)')
    .option('--idempotency-key <key>', 'repeat-safe key (default: derived from branch, actor and reason)')
    .option('--against-evidence', 'acknowledge selecting a branch the comparison did not recommend (also when fewer than two branches are comparable) or whose verifier did not pass (recorded and signed)')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, branchId: string, options: { reason: string; actor?: string; idempotencyKey?: string; againstEvidence?: true } & JsonOption) => {
      const actor = options.actor ?? process.env.USER ?? process.env.LOGNAME ?? 'operator';
      const selection = await selectBranch(await openOrchestratorContext(), forkId, {
        branchId,
        actor,
        reason: options.reason,
        idempotencyKey: options.idempotencyKey,
        againstEvidence: options.againstEvidence === true,
      });
      if (options.json) printJson(io, { selection, git_touched: false });
      else {
        const warning = selection.against_evidence ? `WARNING: selected against the evidence (acknowledged): ${describeEvidence(selection.branch_id, selection.against_evidence.evidence)}\n` : '';
        io.stdout(`selected ${selection.branch_id} at fork revision ${selection.fork_revision} by ${selection.actor}\n${warning}No git command ran: selection is not landing. Next: citadel fork land ${forkId}\n`);
      }
    });
}
