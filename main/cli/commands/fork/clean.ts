import type { Command } from 'commander';
import { openOrchestratorContext } from '../../../host/open-context';
import { cleanFork } from '../../../orchestrator';
import { printJson, type Io } from '../../io/output';
import type { JsonOption } from './fork-output';

/** `citadel fork clean FORK_ID`: worktrees and git branches go; the evidence stays. */
export function cleanCommand(fork: Command, io: Io): void {
  fork
    .command('clean')
    .description("remove the fork's worktrees and git branches (never its evidence)")
    .argument('<fork_id>')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, options: JsonOption) => {
      const outcome = await cleanFork(await openOrchestratorContext(), forkId);
      if (options.json) printJson(io, outcome);
      else for (const b of outcome.branches) io.stdout(`${b.branch_id}: worktree ${b.worktree_removed ? 'removed' : 'already gone'}, branch ${b.branch_deleted ? 'deleted' : 'already gone'}\n`);
    });
}
