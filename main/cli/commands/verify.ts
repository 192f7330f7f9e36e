import type { Command } from 'commander';
import { CitadelError } from '../../../shared/errors';
import type { AttestationVerification } from '../../../shared/publish/attestation';
import { verifyAttestation } from '../../orchestrator';
import { printJson, type Io } from '../io/output';

interface VerifyOptions {
  publicKey?: string;
  proof?: string;
  replay?: string;
  parent?: string;
  parentPublicKey?: string;
  json?: boolean;
}

/**
 * `citadel verify FILE [--public-key PEM] [--proof FILE] [--replay FILE] [--parent FILE
 * [--parent-public-key PEM]] [--json]` (issues 15, 32): offline, with no fork root. Exit 0 only
 * when everything verified; otherwise 1 with the code of the first failure (with --json, the report
 * rides in the error's details).
 */
export function verifyCommand(program: Command, io: Io): void {
  program
    .command('verify')
    .description('verify an attestation bundle (.intoto.jsonl) offline: signatures, schemas, and the proof and replay it names')
    .argument('<file>', 'the bundle citadel fork attest wrote')
    .option('--public-key <pem_file>', "the issuer's public key (citadel keys export); without it the signer is unverified")
    .option('--proof <file>', 'a proof report whose digest must be the attested one')
    .option('--replay <file>', 'a replay whose digest must be the attested one')
    .option('--parent <file>', "the bundle of the fork this follow-up continues: verified too, and it must attest the parent branch, receipt, contract and result commit the child's lineage names")
    .option('--parent-public-key <pem_file>', "the parent issuer's public key, when not the --public-key one")
    .option('--json', 'print exactly one JSON document')
    .action(async (file: string, options: VerifyOptions) => {
      if (options.parentPublicKey !== undefined && options.parent === undefined) throw new CitadelError('USAGE_ERROR', '--parent-public-key goes with --parent PARENT_BUNDLE');
      const report = await verifyAttestation({
        bundle: file,
        ...(options.publicKey === undefined ? {} : { publicKey: options.publicKey }),
        ...(options.proof === undefined ? {} : { proof: options.proof }),
        ...(options.replay === undefined ? {} : { replay: options.replay }),
        ...(options.parent === undefined ? {} : { parent: options.parent }),
        ...(options.parentPublicKey === undefined ? {} : { parentPublicKey: options.parentPublicKey }),
      });
      if (options.json !== true) io.stdout(render(report));
      if (report.failure !== null) {
        // `parent` is absent without --parent: the details carry it only when it is there.
        const { parent, ...rest } = report;
        const verification = parent === undefined ? rest : { ...rest, parent };
        throw new CitadelError(report.failure.code, report.failure.message, options.json === true ? { details: { verification } } : {});
      }
      if (options.json === true) printJson(io, report);
    });
}

function render(report: AttestationVerification): string {
  const signed = report.signer === 'verified';
  const lines = [
    signed
      ? `key id ${report.key_id ?? '?'}: every signature holds with the given public key`
      : `key id ${report.key_id ?? '?'}: signer unverified${report.failure?.code === 'ATTESTATION_SIGNER_UNVERIFIED' ? ' (no --public-key given): nothing below is proven by a signature' : ''}`,
  ];
  for (const envelope of report.envelopes) {
    lines.push(`line ${envelope.line}: ${envelope.predicate_type}`);
    for (const subject of envelope.subjects) lines.push(`  subject ${subject.name}  gitCommit ${subject.digest.gitCommit}`);
    for (const fact of envelope.facts) lines.push(`  ${signed ? '' : 'claims: '}${fact}`);
  }
  const artifact = (state: AttestationVerification['proof']): string => (state === 'matched' ? 'digest matches the attested one' : state.replace('_', ' '));
  lines.push(`proof report: ${artifact(report.proof)}`, `replay: ${artifact(report.replay)}`);
  if (report.parent !== undefined) lines.push(`parent: ${typeof report.parent === 'string' || signed ? '' : 'claims: '}${parentLine(report.parent)}`);
  lines.push(report.verified ? 'verified' : `NOT VERIFIED: ${report.failure?.code ?? ''}`);
  return `${lines.join('\n')}\n`;
}

function parentLine(parent: NonNullable<AttestationVerification['parent']>): string {
  if (typeof parent === 'string') return parent.replace('_', ' ');
  return `fork ${parent.fork_id}, branch ${parent.branch_id}, result commit ${parent.result_commit} (key id ${parent.key_id}): linked`;
}
