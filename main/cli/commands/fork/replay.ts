import type { Command } from 'commander';
import { openOrchestratorContext } from '../../../host/open-context';
import { exportReplay } from '../../../orchestrator';
import type { Io } from '../../io/output';
import { printArtifact } from './fork-output';

/** `citadel fork replay FORK_ID [--output FILE]`. */
export function replayCommand(fork: Command, io: Io): void {
  fork
    .command('replay')
    .description('write the deterministic, redacted public replay of a fork')
    .argument('<fork_id>')
    .option('--output <file>', 'write to this file instead of stdout')
    .option('--json', 'errors as one JSON document (the replay itself is always JSON)')
    .action(async (forkId: string, options: { output?: string }) => {
      printArtifact(io, await exportReplay(await openOrchestratorContext(), forkId, options.output), options.output);
    });
}
