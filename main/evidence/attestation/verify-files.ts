import { CitadelError } from '../../../shared/errors';
import type { AttestationVerification } from '../../../shared/publish/attestation';
import { readBoundedText } from '../../store/read-bounded-text';
import { verifyBundle } from './verify-bundle';

/** The files `citadel verify` is handed; only `bundle` is required. */
export interface AttestationFiles {
  readonly bundle: string;
  readonly publicKey?: string;
  readonly proof?: string;
  readonly replay?: string;
  /** Issue 32: the bundle of the fork the bundle's fork continues; its signatures are checked with `parentPublicKey`, else `publicKey`. */
  readonly parent?: string;
  readonly parentPublicKey?: string;
}

// A replay or proof report is bounded at 16 MiB where it is opened; a bundle of 1024 envelopes fits too.
const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** Reads the files (the operator's own arguments, symlinks followed), then verifies offline: no fork root, no key store. */
export async function verifyAttestation(files: AttestationFiles): Promise<AttestationVerification> {
  const read = async (file: string | undefined): Promise<string | null> => {
    if (file === undefined) return null;
    const result = await readBoundedText(file, MAX_FILE_BYTES, 'follow');
    if (result.ok) return result.text;
    const why = result.kind === 'unreadable' ? result.reason : result.violation.message;
    throw new CitadelError('ATTESTATION_FILE_UNREADABLE', `cannot read ${file}: ${why}`, { details: { file, reason: why } });
  };
  const bundle = (await read(files.bundle)) ?? '';
  const publicKeyPem = await read(files.publicKey);
  const parent = files.parent === undefined ? undefined : { bundle: (await read(files.parent)) ?? '', publicKeyPem: files.parentPublicKey === undefined ? publicKeyPem : await read(files.parentPublicKey) };
  return verifyBundle({ bundle, publicKeyPem, proof: await read(files.proof), replay: await read(files.replay), ...(parent === undefined ? {} : { parent }) });
}
