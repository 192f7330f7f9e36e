import type { Command } from 'commander';
import { openOrchestratorContext } from '../../host/open-context';
import { attestFork } from '../../orchestrator';
import { printJson, type Io } from '../io/output';

/** `citadel fork attest FORK_ID [--output FILE] [--json]` (issue 15). Parsing and printing only; the rule is main/evidence/attestation. */
export function attestCommand(fork: Command, io: Io): void {
  fork
    .command('attest')
    .description("write the fork's in-toto attestations: one DSSE envelope per line (.intoto.jsonl), signed by its issuer key")
    .argument('<fork_id>')
    .option('--output <file>', 'write the bundle to this file instead of stdout')
    .option('--json', 'print exactly one JSON document (the envelopes, or what was written)')
    .action(async (forkId: string, options: { output?: string; json?: boolean }) => {
      const bundle = await attestFork(await openOrchestratorContext(), forkId, options.output);
      if (options.output !== undefined) printJson(io, { written: options.output, digest: bundle.digest, envelopes: bundle.envelopes.length });
      else if (options.json === true) printJson(io, { fork_id: forkId, digest: bundle.digest, envelopes: bundle.envelopes });
      else io.stdout(bundle.text);
    });
}
