/**
 * Issue 32, below the CLI: a follow-up's v3 branch statements and v2 decision, signed here, verify;
 * `verifyBundle` with a parent bundle links them only when the child's lineage names the parent's
 * fork, contract, objective, attested branch, receipt and result commit, and otherwise says which
 * fact differs (ATTESTATION_PARENT_MISMATCH). A v3 material that is not the base revision, or a
 * lineage in a v1 shape, is refused.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signStatement } from '../../../main/evidence/attestation/dsse';
import { assertPublicStatements } from '../../../main/evidence/attestation/public-statements';
import { verifyBundle } from '../../../main/evidence/attestation/verify-bundle';
import { publicKeyDigest, rawPublicKey } from '../../../main/evidence/signing/public-key';
import { canonicalJson } from '../../../shared/canonical-json';
import { sha256Digest } from '../../../shared/digest';
import type { CitadelStatement } from '../../../shared/publish/attestation';

const issuer = (): { privateKey: KeyObject; keyid: string; pem: string } => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, keyid: publicKeyDigest(rawPublicKey(publicKey)), pem: publicKey.export({ format: 'pem', type: 'spki' }).toString() };
};
const KEY = issuer();
const d = (text: string): string => sha256Digest(text);
const PARENT = 'fork-01jparentparentparentparen';
const CHILD = 'fork-01jchxdchxdchxdchxdchxdchx';
const BASE = 'a'.repeat(40);
const PARENT_RESULT = 'b'.repeat(40);
const CHILD_RESULT = 'c'.repeat(40);
const artifacts = { replay_digest: d('replay'), proof_digest: d('proof') };

const contractOf = (name: string, keyid: string) => ({
  contract_digest: d(`${name} contract`),
  objective_digest: d(`${name} objective`),
  scope_digest: d('scope'),
  policy_digest: d('policy'),
  budget_digest: d('budget'),
  workflow_digest: d('workflow'),
  verifier_digest: d('verifier'),
  executor_set_digest: d('set'),
  signer_public_key_digest: keyid,
});

const branchOf = (branchId: string, base: string, result: string, receipt: string) => ({
  branch_id: branchId,
  profile_id: branchId.replace('branch-', ''),
  runtime: branchId.replace('branch-', ''),
  provider: null,
  requested_model: 'default',
  observed_model: null,
  model_proof: 'unknown' as const,
  executor_profile_digest: d('profile'),
  verifier: { status: 'passed', steps: [] },
  attempt: 1,
  status: 'passed' as const,
  failure_code: null,
  base_revision: base,
  result_commit: result,
  execution_receipt_digest: receipt,
  fork_receipt_digest: d('wrapper'),
});

const subjectOf = (fork: string, branchId: string, commit: string) => ({ name: `citadel/${fork}/${branchId}`, digest: { gitCommit: commit } });

function decision(fork: string, contract: object, branches: { branch_id: string; commit: string; receipt: string }[], type = 'urn:citadel:attestation:fork-decision:v1'): CitadelStatement {
  return {
    _type: 'https://in-toto.io/Statement/v1',
    subject: branches.map((b) => subjectOf(fork, b.branch_id, b.commit)),
    predicateType: type,
    predicate: {
      fork_id: fork,
      contract,
      branches: branches.map((b) => ({ branch_id: b.branch_id, receipt_verified: true, execution_receipt_digest: b.receipt })),
      comparison: { outcome: 'tie', recommended_branch_id: null },
      selection: { selected: false, branch_id: null, selected_at: null },
      landing: { landed: false, landed_at: null, merge_commit: null },
      artifacts,
    },
  } as CitadelStatement;
}

/** The parent: branch-claude (its result is the child's base) and branch-codex, v1 statements. */
function parentStatements(keyid = KEY.keyid): CitadelStatement[] {
  const contract = contractOf('parent', keyid);
  const branches = [
    { branch_id: 'branch-claude', commit: PARENT_RESULT, receipt: d('parent claude receipt') },
    { branch_id: 'branch-codex', commit: 'd'.repeat(40), receipt: d('parent codex receipt') },
  ];
  return [
    ...branches.map(
      (b): CitadelStatement => ({
        _type: 'https://in-toto.io/Statement/v1',
        subject: [subjectOf(PARENT, b.branch_id, b.commit)],
        predicateType: 'urn:citadel:attestation:branch-result:v1',
        predicate: { fork_id: PARENT, contract, branch: branchOf(b.branch_id, BASE, b.commit, b.receipt), artifacts },
      }),
    ),
    decision(PARENT, contract, branches),
  ];
}

const LINEAGE = {
  parent_fork_id: PARENT,
  parent_branch_id: 'branch-claude',
  parent_contract_digest: d('parent contract'),
  parent_execution_receipt_digest: d('parent claude receipt'),
  parent_objective_digest: d('parent objective'),
  parent_signer_public_key_digest: KEY.keyid,
};

interface ChildVariant {
  lineage?: Record<string, string>;
  base?: string;
  material?: { name: string; digest: { gitCommit: string } };
  branchType?: string;
  decisionType?: string;
}

/** The follow-up: one v3 branch statement starting from the parent's result, and a v2 decision. */
function childStatements(variant: ChildVariant = {}): CitadelStatement[] {
  const lineage = variant.lineage ?? LINEAGE;
  const contract = { ...contractOf('child', KEY.keyid), lineage };
  const base = variant.base ?? PARENT_RESULT;
  const receipt = d('child receipt');
  const branch: CitadelStatement = {
    _type: 'https://in-toto.io/Statement/v1',
    subject: [subjectOf(CHILD, 'branch-claude', CHILD_RESULT)],
    predicateType: variant.branchType ?? 'urn:citadel:attestation:branch-result:v3',
    predicate: {
      fork_id: CHILD,
      contract,
      branch: branchOf('branch-claude', base, CHILD_RESULT, receipt),
      materials: [variant.material ?? subjectOf(lineage.parent_fork_id ?? PARENT, lineage.parent_branch_id ?? 'branch-claude', base)],
      artifacts,
    },
  } as CitadelStatement;
  return [branch, decision(CHILD, contract, [{ branch_id: 'branch-claude', commit: CHILD_RESULT, receipt }], variant.decisionType ?? 'urn:citadel:attestation:fork-decision:v2')];
}

const bundleOf = (statements: readonly CitadelStatement[], key = KEY): string => statements.map((s) => `${canonicalJson(signStatement(s, key.privateKey, key.keyid))}\n`).join('');
const PARENT_BUNDLE = bundleOf(parentStatements());
const verifyChild = (child: readonly CitadelStatement[], parent = PARENT_BUNDLE, parentPem: string | null = KEY.pem) =>
  verifyBundle({ bundle: bundleOf(child), publicKeyPem: KEY.pem, proof: null, replay: null, parent: { bundle: parent, publicKeyPem: parentPem } });

describe('a follow-up bundle and its parent', () => {
  it('verifies, passes the public gate, states the lineage, and links to the parent', async () => {
    await expect(assertPublicStatements(childStatements())).resolves.toBeUndefined();
    const report = verifyChild(childStatements());
    expect(report).toMatchObject({ verified: true, failure: null, parent: { linked: true, fork_id: PARENT, branch_id: 'branch-claude', result_commit: PARENT_RESULT, key_id: KEY.keyid } });
    expect(report.envelopes[0]?.facts).toContain(`follow-up of fork ${PARENT}, branch branch-claude, from its result commit ${PARENT_RESULT}`);
    expect(report.envelopes[0]?.facts).toContain(`parent contract ${LINEAGE.parent_contract_digest}, parent execution receipt ${LINEAGE.parent_execution_receipt_digest}, parent objective ${LINEAGE.parent_objective_digest}`);
    // Without a parent the report has no parent block; the parent's own bundle (v1, no lineage) verifies as before.
    const alone = verifyBundle({ bundle: bundleOf(childStatements()), publicKeyPem: KEY.pem, proof: null, replay: null });
    expect(alone.verified).toBe(true);
    expect(alone).not.toHaveProperty('parent');
    expect(verifyBundle({ bundle: PARENT_BUNDLE, publicKeyPem: KEY.pem, proof: null, replay: null }).verified).toBe(true);
  });

  it.each([
    ['another parent fork', { parent_fork_id: 'fork-01jzzzzzzzzzzzzzzzzzzzzzzz' }, 'the parent bundle attests fork'],
    ['another parent contract', { parent_contract_digest: d('edited contract') }, 'parent contract'],
    ['another parent objective', { parent_objective_digest: d('edited objective') }, 'parent objective'],
    ['another parent signer', { parent_signer_public_key_digest: d('another key') }, 'parent signer key'],
    ['a branch the parent does not attest', { parent_branch_id: 'branch-gemini' }, 'attests no branch branch-gemini'],
    ['another execution receipt', { parent_execution_receipt_digest: d('edited receipt') }, 'names execution receipt'],
  ])('refuses a lineage naming %s', (_what, edit, message) => {
    const report = verifyChild(childStatements({ lineage: { ...LINEAGE, ...edit } }));
    expect(report).toMatchObject({ verified: false, parent: 'not_linked', failure: { code: 'ATTESTATION_PARENT_MISMATCH' } });
    expect(report.failure?.message).toContain(message);
  });

  it('refuses a child that started from another commit than the parent branch attests', () => {
    const report = verifyChild(childStatements({ base: 'e'.repeat(40) }));
    expect(report.failure).toMatchObject({ code: 'ATTESTATION_PARENT_MISMATCH', message: expect.stringContaining(`result commit ${PARENT_RESULT}`) });
  });

  it('refuses a first fork as the child, and reports a bad parent bundle with its own code', () => {
    const first = verifyBundle({ bundle: PARENT_BUNDLE, publicKeyPem: KEY.pem, proof: null, replay: null, parent: { bundle: PARENT_BUNDLE, publicKeyPem: KEY.pem } });
    expect(first.failure).toMatchObject({ code: 'ATTESTATION_PARENT_MISMATCH', message: expect.stringContaining('carries no lineage') });
    const other = issuer();
    const signedElsewhere = bundleOf(parentStatements(other.keyid), other);
    expect(verifyChild(childStatements(), signedElsewhere).failure).toMatchObject({ code: 'ATTESTATION_KEYID_MISMATCH', message: expect.stringMatching(/^the parent bundle: line 1/), line: null });
    // A bundle of the same facts by another key, with that key given for it: not the parent the child's lineage names.
    expect(verifyChild(childStatements(), signedElsewhere, other.pem).failure).toMatchObject({ code: 'ATTESTATION_PARENT_MISMATCH', message: expect.stringContaining('parent signer key') });
    // A parent that really was signed by another issuer, as the child's lineage says, with its key given: linked.
    const continuesOther = childStatements({ lineage: { ...LINEAGE, parent_signer_public_key_digest: other.keyid } });
    expect(verifyChild(continuesOther, signedElsewhere, other.pem)).toMatchObject({ verified: true, parent: { linked: true, key_id: other.keyid } });
  });

  it('without public keys still checks the link, and never says verified', () => {
    const report = verifyBundle({ bundle: bundleOf(childStatements()), publicKeyPem: null, proof: null, replay: null, parent: { bundle: PARENT_BUNDLE, publicKeyPem: null } });
    expect(report).toMatchObject({ verified: false, signer: 'unverified', parent: { linked: true }, failure: { code: 'ATTESTATION_SIGNER_UNVERIFIED' } });
    const parentUnkeyed = verifyChild(childStatements(), PARENT_BUNDLE, null);
    expect(parentUnkeyed).toMatchObject({ verified: false, parent: { linked: true }, failure: { code: 'ATTESTATION_SIGNER_UNVERIFIED', message: expect.stringContaining('parent bundle') } });
  });

  it('keeps anything but the parent branch name out of a material name at the public gate (its scan skips materials)', async () => {
    for (const name of ['/home/alice/secret-repo/.git', 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB', 'objective: fix the payroll export']) {
      await expect(assertPublicStatements(childStatements({ material: { name, digest: { gitCommit: PARENT_RESULT } } }))).rejects.toMatchObject({ code: 'REPLAY_REDACTION_VIOLATION' });
    }
  });

  it('refuses a v3 material that is not the base revision or not the lineage branch, and a lineage in a v1 shape', () => {
    const alone = (statements: readonly CitadelStatement[]) => verifyBundle({ bundle: bundleOf(statements), publicKeyPem: KEY.pem, proof: null, replay: null }).failure;
    expect(alone(childStatements({ material: subjectOf(PARENT, 'branch-claude', 'f'.repeat(40)) }))).toMatchObject({ code: 'ATTESTATION_STATEMENT_INVALID', line: 1 });
    expect(alone(childStatements({ material: subjectOf(PARENT, 'branch-codex', PARENT_RESULT) }))).toMatchObject({ code: 'ATTESTATION_STATEMENT_INVALID', line: 1 });
    expect(alone(childStatements({ branchType: 'urn:citadel:attestation:branch-result:v1' }))).toMatchObject({ code: 'ATTESTATION_STATEMENT_INVALID', line: 1 });
    expect(alone(childStatements({ decisionType: 'urn:citadel:attestation:fork-decision:v1' }))).toMatchObject({ code: 'ATTESTATION_STATEMENT_INVALID', line: 2 });
  });
});
