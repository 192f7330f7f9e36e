import type { Command } from 'commander';
import { openOrchestratorContext } from '../../host/open-context';
import { exportIssuerKey } from '../../orchestrator';
import { printJson, type Io } from '../io/output';

/** `citadel keys export [--issuer ID] [--json]` (issue 15): the public key recipients verify attestations with. */
export function registerKeysCommands(program: Command, io: Io): void {
  const keys = program.command('keys').description("this machine's issuer keys");
  keys
    .command('export')
    .description("print the issuer's public key (PEM, SubjectPublicKeyInfo) and its digest, the keyid of its attestations")
    .option('--issuer <id>', 'the issuer (default: CITADEL_ISSUER, else local-<login name>)')
    .option('--json', 'print exactly one JSON document')
    .action(async (options: { issuer?: string; json?: boolean }) => {
      const key = await exportIssuerKey(await openOrchestratorContext(), options.issuer);
      if (options.json === true) printJson(io, key);
      else {
        // The PEM alone on stdout, so `citadel keys export > issuer.pem` is the key file; the digest beside it on stderr.
        io.stdout(key.public_key_pem);
        io.stderr(`issuer ${key.issuer_id}, key id ${key.public_key_digest} (fingerprint ${key.fingerprint})\n`);
      }
    });
}
