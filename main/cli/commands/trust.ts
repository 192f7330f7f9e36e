import type { Command } from 'commander';
import { openOrchestratorContext } from '../../host/open-context';
import { fingerprintOf, importTrustedKey, listTrustedKeys, removeTrustedKey, type TrustedKey } from '../../orchestrator';
import { printJson, type Io } from '../io/output';

/**
 * `citadel trust import FILE | list | remove FINGERPRINT`: public keys besides the local issuer key
 * whose forks verify here (issue 12). Parsing and printing only; the rule is main/evidence/trust.
 */
export function registerTrustCommands(program: Command, io: Io): void {
  const trust = program.command('trust').description('public keys, besides this machine\'s issuer key, whose signed forks verify here');
  trust
    .command('import')
    .description("trust a public key: a fork's signer.json, or the 64 hex digits of its public_key_hex")
    .argument('<public-key-file>')
    .option('--json', 'print exactly one JSON document')
    .action(async (file: string, options: { json?: boolean }) => {
      const ctx = await openOrchestratorContext();
      const { key, added } = await importTrustedKey(ctx.keys, file, ctx.now());
      if (options.json === true) printJson(io, { added, key: shown(key) });
      else io.stdout(`${added ? 'trusted' : 'already trusted'}: ${line(key)}\n`);
    });
  trust
    .command('list')
    .description('list the imported public keys')
    .option('--json', 'print exactly one JSON document')
    .action(async (options: { json?: boolean }) => {
      const ctx = await openOrchestratorContext();
      const keys = await listTrustedKeys(ctx.keys);
      if (options.json === true) printJson(io, { key_store: ctx.keys.store.kind, keys: keys.map(shown) });
      else io.stdout(keys.length === 0 ? 'no imported public keys; only this machine\'s issuer key is trusted\n' : `${keys.map(line).join('\n')}\n`);
    });
  trust
    .command('remove')
    .description('stop trusting an imported public key')
    .argument('<fingerprint>', 'as citadel trust list prints it (16 hex digits), or the full sha256: digest')
    .option('--json', 'print exactly one JSON document')
    .action(async (fingerprint: string, options: { json?: boolean }) => {
      const ctx = await openOrchestratorContext();
      const removed = await removeTrustedKey(ctx.keys, fingerprint);
      if (options.json === true) printJson(io, { removed: shown(removed) });
      else io.stdout(`no longer trusted: ${line(removed)}\n`);
    });
}

const shown = (key: TrustedKey) => ({ fingerprint: fingerprintOf(key.public_key_digest), ...key });
const line = (key: TrustedKey): string => `${fingerprintOf(key.public_key_digest)}  ${key.issuer_id ?? '(no issuer named)'}  imported ${key.imported_at}`;
