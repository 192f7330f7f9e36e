import type { Command } from 'commander';
import { openOrchestratorContext } from '../../../host/open-context';
import { confirmLanding, landingChecks } from '../../../orchestrator';
import { describeEvidence, selectedAgainstEvidence, type SelectedAgainstEvidence } from '../../../../shared/fork/selection-evidence';
import { describeContinues } from '../../../../shared/fork/landing';
import { printJson, type Io } from '../../io/output';
import { renderLandingChecks } from '../render-fork';
import type { JsonOption } from './fork-output';

/** `citadel fork land FORK_ID [--confirm TOKEN]`: the checks and a token, or with the token a local merge. */
export function landCommand(fork: Command, io: Io): void {
  fork
    .command('land')
    .description('without --confirm: check every precondition and print a confirmation token; with it: re-check and merge locally')
    .argument('<fork_id>')
    .option('--confirm <token>', 'the token printed by a plain `fork land`')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, options: { confirm?: string } & JsonOption) => {
      const ctx = await openOrchestratorContext();
      if (options.confirm !== undefined) {
        const result = await confirmLanding(ctx, forkId, options.confirm);
        if (options.json) printJson(io, result);
        else io.stdout(`landed: merge commit ${result.merge_commit} (local merge only; nothing was pushed)\n`);
        return;
      }
      const { checks, token, plan } = await landingChecks(ctx, forkId);
      const against = selectedAgainstEvidence(plan);
      if (options.json) printJson(io, { checks, token, against_evidence: against, continues: plan.continues ?? null });
      else {
        const continues = plan.continues === undefined ? '' : `${plan.continues.in_target === true ? 'note' : 'WARNING'}: ${describeContinues(plan.continues)}\n`;
        io.stdout(`${against === null ? '' : againstEvidenceWarning(against)}${continues}${renderLandingChecks(forkId, checks, token)}`);
      }
    });
}

/** The warning line of a selection made against the evidence (and acknowledged). */
function againstEvidenceWarning({ branch_id, evidence }: SelectedAgainstEvidence): string {
  return `WARNING: ${branch_id} was selected against the evidence (acknowledged): ${describeEvidence(branch_id, evidence)}\n`;
}
