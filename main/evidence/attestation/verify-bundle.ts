import { createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { ErrorCode } from '../../../shared/errors';
import { gitBranchName } from '../../../shared/fork/ids';
import {
  CitadelStatementSchema,
  isBranchStatement,
  isLineageBranchStatement,
  DSSE_PAYLOAD_TYPE,
  DsseEnvelopeSchema,
  landedSubjectName,
  type AttestationVerification,
  type BranchStatement,
  type CitadelStatement,
  type CommitSubject,
  type DecisionStatement,
} from '../../../shared/publish/attestation';
import { openArtifact } from '../../publish/open-artifact';
import { publicKeyDigest, rawPublicKey } from '../signing/public-key';
import { resultSubject } from './build-statements';
import { signatureHolds } from './dsse';
import { branchFacts, decisionFacts } from './proven-facts';
import { checkParentLink } from './verify-parent-link';

export interface BundleInput {
  readonly bundle: string;
  /** PEM of an ed25519 SubjectPublicKeyInfo; null: signatures cannot be checked, and the signer is unverified. */
  readonly publicKeyPem: string | null;
  readonly proof: string | null;
  readonly replay: string | null;
  /** `--parent` (issue 32): the bundle of the fork the child continues, and the key its signatures are checked with. */
  readonly parent?: { readonly bundle: string; readonly publicKeyPem: string | null };
}

type Failure = NonNullable<AttestationVerification['failure']>;
class Refused extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message);
  }
}
function refuse(code: ErrorCode, message: string, line: number | null = null): never {
  throw new Refused({ code, message, line });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
// A Citadel bundle has one envelope per branch plus one; the bound keeps a hostile file from costing more.
const MAX_ENVELOPES = 1024;

/**
 * `citadel verify`, offline: every envelope's shape, payloadType, keyid, signature over the PAE and
 * statement schema, in that order per line; then that the lines are one fork's bundle; then the
 * proof and replay digests; then, with a parent bundle, that bundle the same way and the link to it.
 * The first failure is reported with its code, and nothing after it is claimed. Without a public
 * key every other check still runs, and the result is never `verified`.
 */
export function verifyBundle(input: BundleInput): AttestationVerification {
  const report: AttestationVerification = {
    verified: false,
    key_id: null,
    signer: 'unverified',
    fork_id: null,
    envelopes: [],
    proof: input.proof === null ? 'not_given' : 'not_checked',
    replay: input.replay === null ? 'not_given' : 'not_checked',
    ...(input.parent === undefined ? {} : { parent: 'not_checked' as const }),
    failure: null,
  };
  try {
    const key = input.publicKeyPem === null ? null : readPublicKey(input.publicKeyPem);
    const statements = readBundle(input.bundle, key, report);
    const { artifacts } = statements[0]?.statement.predicate ?? refuse('ATTESTATION_MALFORMED', 'the bundle holds no envelope');
    if (input.proof !== null) report.proof = matchArtifact(input.proof, 'citadel_proof_report', artifacts.proof_digest, 'ATTESTATION_PROOF_MISMATCH');
    if (input.replay !== null) report.replay = matchArtifact(input.replay, 'citadel_replay', artifacts.replay_digest, 'ATTESTATION_REPLAY_MISMATCH');
    const parentKeyGiven = input.parent === undefined || linkParent(statements, input.parent, report);
    if (key === null) refuse('ATTESTATION_SIGNER_UNVERIFIED', `the signatures were not checked: no public key was given; the envelopes name key id ${report.key_id ?? '?'}`);
    if (!parentKeyGiven) refuse('ATTESTATION_SIGNER_UNVERIFIED', "the parent bundle's signatures were not checked: no public key was given for it");
    report.signer = 'verified';
    report.verified = true;
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    report.failure = error.failure;
  }
  return report;
}

function readPublicKey(pem: string): { key: KeyObject; digest: string } {
  let key: KeyObject | null = null;
  try {
    // A private key's PEM would be read as its public half: only a public key is accepted.
    if (pem.includes('-----BEGIN PUBLIC KEY-----')) key = createPublicKey({ key: pem, format: 'pem' });
  } catch {
    key = null;
  }
  if (key?.asymmetricKeyType !== 'ed25519') refuse('PUBLIC_KEY_INVALID', 'the public key file is not an ed25519 public key in PEM (SPKI), as citadel keys export writes it');
  return { key: key as KeyObject, digest: publicKeyDigest(rawPublicKey(key as KeyObject)) };
}

/** Every line verified, then the lines held to one fork's bundle. */
function readBundle(bundle: string, key: { key: KeyObject; digest: string } | null, report: AttestationVerification): Verified[] {
  const statements = readLines(bundle).map((line, index) => verifyLine(line, index + 1, key, report));
  checkBundle(statements, report);
  return statements;
}

/**
 * The parent bundle verified as a bundle of its own (its failure is reported with its code, as the
 * parent's), then the link. Whether the parent's signatures were checked with a key.
 */
function linkParent(child: readonly Verified[], input: NonNullable<BundleInput['parent']>, report: AttestationVerification): boolean {
  report.parent = 'not_linked';
  const own: AttestationVerification = { verified: false, key_id: null, signer: 'unverified', fork_id: null, envelopes: [], proof: 'not_given', replay: 'not_given', failure: null };
  let parent: Verified[];
  try {
    parent = readBundle(input.bundle, input.publicKeyPem === null ? null : readPublicKey(input.publicKeyPem), own);
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    refuse(error.failure.code, `the parent bundle: ${error.failure.message}`);
  }
  const check = checkParentLink(
    child.map((v) => v.statement),
    parent.map((v) => v.statement),
  );
  if (!check.linked) refuse('ATTESTATION_PARENT_MISMATCH', check.reason);
  report.parent = { linked: true, ...check.link, key_id: own.key_id ?? refuse('ATTESTATION_MALFORMED', 'the parent bundle holds no envelope') };
  return input.publicKeyPem !== null;
}

function readLines(bundle: string): string[] {
  const lines = bundle.endsWith('\n') ? bundle.slice(0, -1).split('\n') : bundle.split('\n');
  if (bundle === '' || lines.length > MAX_ENVELOPES) refuse('ATTESTATION_MALFORMED', `a bundle holds 1 to ${MAX_ENVELOPES} envelopes, one per line`);
  return lines;
}

interface Verified {
  readonly line: number;
  readonly statement: CitadelStatement;
}

function verifyLine(text: string, line: number, key: { key: KeyObject; digest: string } | null, report: AttestationVerification): Verified {
  let value: unknown;
  try {
    // Any JSON reading of the envelope is fine: the signature is checked over the payload read here.
    value = JSON.parse(text);
  } catch {
    refuse('ATTESTATION_MALFORMED', `line ${line} is not JSON`, line);
  }
  const envelope = DsseEnvelopeSchema.safeParse(value);
  if (!envelope.success) refuse('ATTESTATION_MALFORMED', `line ${line} is not a DSSE envelope with one signature: ${z.prettifyError(envelope.error)}`, line);
  const { payload, payloadType, signatures } = envelope.data;
  if (payloadType !== DSSE_PAYLOAD_TYPE) refuse('ATTESTATION_PAYLOAD_TYPE_UNSUPPORTED', `line ${line}: payloadType ${JSON.stringify(payloadType)} is not ${DSSE_PAYLOAD_TYPE}`, line);
  const [{ keyid, sig }] = signatures as [{ keyid: string; sig: string }];
  const expected = key?.digest ?? report.key_id ?? keyid;
  if (keyid !== expected) refuse('ATTESTATION_KEYID_MISMATCH', `line ${line}: keyid ${JSON.stringify(keyid)} is not ${key === null ? 'the bundle\'s' : 'the public key\'s'} ${expected}`, line);
  report.key_id = keyid;
  const bytes = Buffer.from(payload, 'base64');
  // Buffer's decoder skips what is not base64; its own spelling of the bytes must be the payload.
  if (bytes.toString('base64') !== payload) refuse('ATTESTATION_MALFORMED', `line ${line}: the payload is not standard base64`, line);
  if (key !== null && !signatureHolds({ payloadType }, bytes, sig, key.key)) refuse('ATTESTATION_SIGNATURE_INVALID', `line ${line}: the signature does not verify over the payload with the public key`, line);
  const statement = readStatement(bytes, line);
  if (statement.predicate.contract.signer_public_key_digest !== keyid) refuse('ATTESTATION_KEYID_MISMATCH', `line ${line}: the predicate's signer key is not the envelope's keyid`, line);
  report.envelopes.push({ line, predicate_type: statement.predicateType, subjects: statement.subject, facts: isBranchStatement(statement) ? branchFacts(statement.predicate) : decisionFacts(statement.predicate) });
  return { line, statement };
}

function readStatement(bytes: Buffer, line: number): CitadelStatement {
  let value: unknown;
  try {
    value = readsOneWay(utf8.decode(bytes));
  } catch {
    value = undefined;
  }
  if (value === undefined) refuse('ATTESTATION_STATEMENT_INVALID', `line ${line}: the payload is not compact JSON as citadel fork attest writes it`, line);
  const statement = CitadelStatementSchema.safeParse(value);
  if (!statement.success) refuse('ATTESTATION_STATEMENT_INVALID', `line ${line}: the payload is not an in-toto Statement v1 with a Citadel predicate: ${z.prettifyError(statement.error)}`, line);
  const s = statement.data;
  if (isBranchStatement(s) && !sameSubjects(s.subject, [resultSubject(s.predicate.fork_id, s.predicate.branch.branch_id, s.predicate.branch)])) {
    refuse('ATTESTATION_STATEMENT_INVALID', `line ${line}: the subject is not the branch's result commit`, line);
  }
  // A follow-up starts from its parent branch's result: the material is that branch's, and it is the base revision.
  if (isLineageBranchStatement(s)) {
    const { lineage } = s.predicate.contract;
    const expected: CommitSubject = { name: gitBranchName(lineage.parent_fork_id, lineage.parent_branch_id), digest: { gitCommit: s.predicate.branch.base_revision } };
    if (!sameSubjects(s.predicate.materials, [expected])) refuse('ATTESTATION_STATEMENT_INVALID', `line ${line}: the material is not the base revision, named by the lineage's parent branch`, line);
  }
  return s;
}

/** One fork's bundle: the same fork, contract and artifacts throughout, each attested branch once, and one decision that names exactly them. */
function checkBundle(lines: readonly Verified[], report: AttestationVerification): void {
  const first = lines[0]?.statement.predicate ?? refuse('ATTESTATION_MALFORMED', 'the bundle holds no envelope');
  // The contract block carries a follow-up's lineage: every line names the same one.
  const bound = JSON.stringify([first.contract, first.artifacts]);
  for (const { line, statement } of lines) {
    const p = statement.predicate;
    if (p.fork_id !== first.fork_id) refuse('ATTESTATION_BUNDLE_INCONSISTENT', `line ${line} attests fork ${p.fork_id}, not ${first.fork_id}`, line);
    if (JSON.stringify([p.contract, p.artifacts]) !== bound) refuse('ATTESTATION_BUNDLE_INCONSISTENT', `line ${line} binds another contract or other artifacts than line 1`, line);
  }
  report.fork_id = first.fork_id;
  const decisions = lines.filter((l): l is Verified & { statement: DecisionStatement } => !isBranchStatement(l.statement));
  const [decision, extra] = decisions;
  if (decision === undefined || extra !== undefined) refuse('ATTESTATION_BUNDLE_INCONSISTENT', `the bundle holds ${decisions.length} decision envelopes; exactly one is expected`, extra?.line ?? null);
  const branches = lines.filter((l): l is Verified & { statement: BranchStatement } => isBranchStatement(l.statement));
  const materials = new Set(branches.map(({ statement }) => JSON.stringify('materials' in statement.predicate ? statement.predicate.materials : null)));
  if (materials.size > 1) refuse('ATTESTATION_BUNDLE_INCONSISTENT', "the branch envelopes name different parent result commits as materials", branches[0]?.line ?? null);
  const listed = decision.statement.predicate.branches.filter((b) => b.receipt_verified);
  if (branches.length !== listed.length) refuse('ATTESTATION_BUNDLE_INCONSISTENT', `the decision lists ${listed.length} verified branches; the bundle attests ${branches.length}`, decision.line);
  for (const { line, statement } of branches) {
    const { branch_id, execution_receipt_digest } = statement.predicate.branch;
    const entry = listed.find((b) => b.branch_id === branch_id);
    if (entry?.execution_receipt_digest !== execution_receipt_digest) refuse('ATTESTATION_BUNDLE_INCONSISTENT', `line ${line}: the decision does not list ${branch_id} with this receipt`, line);
    if (branches.filter((b) => b.statement.predicate.branch.branch_id === branch_id).length !== 1) refuse('ATTESTATION_BUNDLE_INCONSISTENT', `${branch_id} is attested more than once`, line);
  }
  const { landing } = decision.statement.predicate;
  if (landing.landed !== (landing.merge_commit !== null)) refuse('ATTESTATION_BUNDLE_INCONSISTENT', 'the decision says landed without a merge commit, or names a merge commit without a landing', decision.line);
  const landed: CommitSubject[] = landing.merge_commit === null ? [] : [{ name: landedSubjectName(first.fork_id), digest: { gitCommit: landing.merge_commit } }];
  if (!sameSubjects(decision.statement.subject, [...branches.flatMap((b) => b.statement.subject), ...landed])) {
    refuse('ATTESTATION_BUNDLE_INCONSISTENT', "the decision's subjects are not the attested branches' result commits and the landed merge commit", decision.line);
  }
}

/**
 * The JSON value of `text` when `text` is exactly how JSON.stringify writes that value (attest
 * writes RFC 8785 text, which is): no duplicate key, whitespace or second spelling, so every JSON
 * reader sees what was signed. Checked by a round trip, as fast as the parse itself; undefined otherwise.
 */
function readsOneWay(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && JSON.stringify(value) === text ? value : undefined;
  } catch {
    return undefined;
  }
}

// Both sides were read by readsOneWay (or built in that key order), so equal values have equal JSON.stringify text.
const sameSubjects = (a: readonly CommitSubject[], b: readonly CommitSubject[]): boolean => JSON.stringify(a) === JSON.stringify(b);

function matchArtifact(text: string, kind: 'citadel_proof_report' | 'citadel_replay', attested: string, code: ErrorCode): 'matched' {
  let digest: string | null = null;
  try {
    const opened = openArtifact(text);
    digest = opened.kind === kind ? opened.digest : null;
  } catch {
    digest = null;
  }
  if (digest === null) refuse(code, `the file is not a Citadel ${kind === 'citadel_replay' ? 'replay' : 'proof report'}`);
  if (digest !== attested) refuse(code, `its digest ${digest} is not the attested ${attested}`);
  return 'matched';
}
