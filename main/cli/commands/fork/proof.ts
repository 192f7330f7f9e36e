import type { Command } from 'commander';
import { openOrchestratorContext } from '../../../host/open-context';
import { exportProof } from '../../../orchestrator';
import type { Io } from '../../io/output';
import { printArtifact } from './fork-output';

/** `citadel fork proof FORK_ID [--output FILE]`. */
export function proofCommand(fork: Command, io: Io): void {
  fork
    .command('proof')
    .description('write the bounded proof report: verified counts, comparison outcome and the embedded replay')
    .argument('<fork_id>')
    .option('--output <file>', 'write to this file instead of stdout')
    .option('--json', 'errors as one JSON document (the report itself is always JSON)')
    .action(async (forkId: string, options: { output?: string }) => {
      printArtifact(io, await exportProof(await openOrchestratorContext(), forkId, options.output), options.output);
    });
}
