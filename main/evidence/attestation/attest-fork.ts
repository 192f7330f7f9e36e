import { canonicalJson } from '../../../shared/canonical-json';
import { sha256Digest } from '../../../shared/digest';
import { CitadelError } from '../../../shared/errors';
import type { Contract } from '../../../shared/fork/contract';
import { SignerRecordSchema } from '../../../shared/fork/fork-request';
import type { DsseEnvelope } from '../../../shared/publish/attestation';
import { ProofReportSchema, ReplaySchema } from '../../../shared/publish/replay';
import type { OrchestratorContext } from '../../host/context';
import { standingLanding } from '../../landing/decision-standing';
import { buildProof } from '../../publish/build-proof';
import { renderPublic, writePublic, type PublicArtifact } from '../../publish/export-public';
import { readStoredJson, UNTRUSTED } from '../../store/read-stored-json';
import { verifyFork } from '../verify-fork';
import { buildStatements } from './build-statements';
import { assertPublicStatements } from './public-statements';
import { signStatement } from './dsse';

export interface AttestationBundle extends PublicArtifact {
  readonly envelopes: readonly DsseEnvelope[];
}

/**
 * `citadel fork attest`: the fork's `.intoto.jsonl` bundle, one DSSE envelope per line, signed by
 * the issuer key the contract binds. Fails closed before anything is written: every statement must
 * match its strict schema and every predicate pass the replay's secret and path scan. The same fork
 * and evidence give the same bytes (canonical JSON, deterministic ed25519).
 */
export async function attestFork(ctx: OrchestratorContext, forkId: string, file?: string): Promise<AttestationBundle> {
  const verified = await verifyFork(ctx, forkId);
  if (!verified.branches.some((b) => b.receipt_verified)) {
    throw new CitadelError('ATTESTATION_NOTHING_VERIFIED', `fork ${forkId} has no branch with a verified receipt here: there is nothing to attest`, { details: { fork_id: forkId } });
  }
  const proof = await buildProof(ctx, forkId);
  // The digests `citadel fork replay|proof` report for the same fork, each export redacted as it is there.
  const [replayArtifact, proofArtifact] = [await renderPublic(proof.replay, ReplaySchema), await renderPublic(proof, ProofReportSchema)];
  const landing = await standingLanding(ctx.store, verified, forkId);
  const signer = await signingKeyOf(ctx, forkId, verified.contract);
  const statements = buildStatements({
    forkId,
    verified,
    proof,
    artifacts: { replay_digest: replayArtifact.digest, proof_digest: proofArtifact.digest },
    mergeCommit: landing.holds?.merge_commit ?? null,
    keyid: signer.publicKeyDigest,
  });
  await assertPublicStatements(statements);
  const envelopes = statements.map((statement) => signStatement(statement, signer.privateKey, signer.publicKeyDigest));
  const text = envelopes.map((envelope) => `${canonicalJson(envelope)}\n`).join('');
  const bundle = { text, digest: sha256Digest(text), envelopes };
  if (file !== undefined) await writePublic(bundle, file);
  return bundle;
}

/**
 * The key that signed the fork's receipts, from this machine's key store: the signer record's key
 * (verify-fork has held it to the contract's `signer_public_key_digest` for every verified branch).
 * A fork trusted through an imported public key cannot be attested here: its private key is elsewhere.
 */
async function signingKeyOf(ctx: OrchestratorContext, forkId: string, contract: Contract | null) {
  const signer = await readStoredJson(ctx.store.file(forkId, 'signer'), SignerRecordSchema, UNTRUSTED);
  const bound = signer.status === 'valid' ? signer.value : null;
  const key = bound === null ? null : await ctx.keys.loadSigningKey(bound.issuer_id);
  // Schema 1 binds no key in its contract: the signer record's, which verify-fork held to every verified receipt.
  const expected = contract !== null && 'signer_public_key_digest' in contract ? contract.signer_public_key_digest : bound?.public_key_digest;
  if (key === null || bound === null || key.publicKeyDigest !== bound.public_key_digest || key.publicKeyDigest !== expected) {
    throw new CitadelError('SIGNING_KEY_MISMATCH', `this machine's key store does not hold the key that signed fork ${forkId}, so it cannot attest it`, {
      details: { fork_id: forkId },
    });
  }
  return key;
}
