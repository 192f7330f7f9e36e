import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { signEnvelope } from '../../main/evidence/signing/sign-envelope';
import { publicKeyDigest, publicKeyHex, rawPublicKey } from '../../main/evidence/signing/public-key';
import { digestOf } from '../../shared/digest';
import { branchResultOf, type ExecutionReceipt, type ForkReceipt } from '../../shared/fork/receipts';

interface StoredRecord {
  schema_version: number;
  contract_digest: string;
  branches: { branch_id: string; attempt: number; state: string; failure_code: string | null }[];
}

const read = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const write = (file: string, value: unknown): void => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/**
 * Re-signs every signed file of the fork folder `forkDir` with `key`, as an attacker holding only
 * the fork root would: the key in signer.json, the schema 2 contract's key digest, every digest
 * that binds them (fork.json's contract digest, each receipt's and wrapper's), every execution
 * receipt, observation and wrapper. `flip` turns branches into passes or failures on the way.
 * Returns every path (relative to `forkDir`) it rewrote.
 */
export function resignFork(forkDir: string, key: KeyObject, flip: Record<string, 'passed' | 'failed'> = {}): string[] {
  const at = (...parts: string[]): string => path.join(forkDir, ...parts);
  const touched = ['signer.json', 'fork.json'];
  const publicKey = createPublicKey(key);
  const keyDigest = publicKeyDigest(rawPublicKey(publicKey));
  write(at('signer.json'), { ...read<Record<string, unknown>>(at('signer.json')), public_key_hex: publicKeyHex(publicKey), public_key_digest: keyDigest });
  const record = read<StoredRecord>(at('fork.json'));
  if (record.schema_version === 2) {
    const forged = { ...read<Record<string, unknown>>(at('contract.json')), signer_public_key_digest: keyDigest };
    write(at('contract.json'), forged);
    record.contract_digest = digestOf(forged);
    touched.push('contract.json');
  }
  for (const branch of record.branches) {
    const rel = (name: string): string => path.join('branches', branch.branch_id, `attempt-${branch.attempt}`, name);
    const receipt = read<{ receipt: ExecutionReceipt }>(at(rel('execution-receipt.json'))).receipt;
    const to = flip[branch.branch_id];
    const forged: ExecutionReceipt = {
      ...receipt,
      contract_digest: record.contract_digest,
      ...(to === undefined
        ? {}
        : {
            status: to,
            failure_code: to === 'passed' ? null : 'VERIFIER_FAILED',
            verifier: {
              status: to,
              steps: receipt.verifier.steps.map((s) => (s.id === 'workflow_verifier' ? { ...s, status: to, exit_code: to === 'passed' ? 0 : 1 } : s)),
            },
          }),
    };
    branch.state = forged.status;
    branch.failure_code = forged.failure_code;
    const sealed = signEnvelope(forged, key);
    write(at(rel('execution-receipt.json')), sealed);
    touched.push(rel('execution-receipt.json'));
    if (record.schema_version === 2) {
      const observation = { telemetry: forged.telemetry, branch_result_digest: digestOf(branchResultOf(forged)) };
      write(at(rel('observation.json')), observation);
      const wrapper = read<{ receipt: ForkReceipt }>(at(rel('fork-receipt.json'))).receipt;
      const rewrapped: ForkReceipt = { ...wrapper, contract_digest: record.contract_digest, execution_receipt_digest: sealed.receipt_digest, observation_digest: digestOf(observation) };
      write(at(rel('fork-receipt.json')), signEnvelope(rewrapped, key));
      touched.push(rel('observation.json'), rel('fork-receipt.json'));
    }
  }
  write(at('fork.json'), record);
  return touched;
}
