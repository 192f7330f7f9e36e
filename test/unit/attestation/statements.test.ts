/**
 * Issue 15, below the CLI: the PAE is DSSE's (the spec's own example), a signed statement verifies
 * and round-trips through `verifyBundle`, and a secret or an unlisted field in a predicate fails
 * the attestation closed with the replay's code, at the statement's path. Issue 28's v2 branch
 * predicate carries the wire facts, allowlisted; v1 still verifies.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { preAuthEncoding, signStatement } from '../../../main/evidence/attestation/dsse';
import { assertPublicStatements } from '../../../main/evidence/attestation/public-statements';
import { verifyBundle } from '../../../main/evidence/attestation/verify-bundle';
import { publicKeyDigest, rawPublicKey } from '../../../main/evidence/signing/public-key';
import { canonicalJson } from '../../../shared/canonical-json';
import { sha256Digest } from '../../../shared/digest';
import { isCitadelError } from '../../../shared/errors';
import type { BranchStatement, DecisionStatement } from '../../../shared/publish/attestation';
import { publicWireFacts, PublicWireFactsSchema } from '../../../shared/publish/public-wire';
import { wireFactsOf } from '../../../shared/runtime/wire-facts';
import { SECRET_CORPUS } from '../../fixtures/secrets/corpus';
import { wireExchange } from '../../support/wire-exchange';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const keyid = publicKeyDigest(rawPublicKey(publicKey));
const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
const d = (text: string): string => sha256Digest(text);
const FORK = 'fork-01jabcdefghjkmnpqrstvwxyz0';
const BASE = 'a'.repeat(40);
const RESULT = 'b'.repeat(40);
const contract = {
  contract_digest: d('contract'),
  objective_digest: d('objective'),
  scope_digest: d('scope'),
  policy_digest: d('policy'),
  budget_digest: d('budget'),
  workflow_digest: d('workflow'),
  verifier_digest: d('verifier'),
  executor_set_digest: d('set'),
  signer_public_key_digest: keyid,
};
const artifacts = { replay_digest: d('replay'), proof_digest: d('proof') };

function branchStatement(requestedModel = 'claude-sonnet-4-5'): BranchStatement {
  return {
    _type: 'https://in-toto.io/Statement/v1',
    subject: [{ name: `citadel/${FORK}/branch-claude`, digest: { gitCommit: RESULT } }],
    predicateType: 'urn:citadel:attestation:branch-result:v1',
    predicate: {
      fork_id: FORK,
      contract,
      branch: {
        branch_id: 'branch-claude',
        profile_id: 'claude',
        runtime: 'claude',
        provider: null,
        requested_model: requestedModel,
        observed_model: null,
        model_proof: 'unknown',
        executor_profile_digest: d('profile'),
        verifier: { status: 'passed', steps: [{ id: 'git_diff_check', status: 'passed', exit_code: 0, timed_out: false }] },
        attempt: 1,
        status: 'passed',
        failure_code: null,
        base_revision: BASE,
        result_commit: RESULT,
        execution_receipt_digest: d('receipt'),
        fork_receipt_digest: d('wrapper'),
      },
      artifacts,
    },
  };
}

const decisionStatement: DecisionStatement = {
  _type: 'https://in-toto.io/Statement/v1',
  subject: [{ name: `citadel/${FORK}/branch-claude`, digest: { gitCommit: RESULT } }],
  predicateType: 'urn:citadel:attestation:fork-decision:v1',
  predicate: {
    fork_id: FORK,
    contract,
    branches: [{ branch_id: 'branch-claude', receipt_verified: true, execution_receipt_digest: d('receipt') }],
    comparison: { outcome: 'recommend', recommended_branch_id: 'branch-claude' },
    selection: { selected: false, branch_id: null, selected_at: null },
    landing: { landed: false, landed_at: null, merge_commit: null },
    artifacts,
  },
};

const bundleOf = (...statements: (BranchStatement | DecisionStatement)[]): string =>
  statements.map((s) => `${canonicalJson(signStatement(s, privateKey, keyid))}\n`).join('');

describe('attestation statements', () => {
  it("computes DSSE's pre-authentication encoding (the spec's example)", () => {
    expect(preAuthEncoding('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe('DSSEv1 29 http://example.com/HelloWorld 11 hello world');
  });

  it('verifies a signed bundle, and names the first failure once a signed byte changes', () => {
    const bundle = bundleOf(branchStatement(), decisionStatement);
    expect(verifyBundle({ bundle, publicKeyPem: pem, proof: null, replay: null })).toMatchObject({ verified: true, signer: 'verified', key_id: keyid, fork_id: FORK, failure: null });
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(verifyBundle({ bundle, publicKeyPem: other, proof: null, replay: null }).failure).toMatchObject({ code: 'ATTESTATION_KEYID_MISMATCH', line: 1 });
    const resigned = bundle.replace(/"sig":"[^"]+"/, `"sig":"${'A'.repeat(86)}=="`);
    expect(verifyBundle({ bundle: resigned, publicKeyPem: pem, proof: null, replay: null }).failure).toMatchObject({ code: 'ATTESTATION_SIGNATURE_INVALID', line: 1 });
    expect(verifyBundle({ bundle, publicKeyPem: null, proof: null, replay: null })).toMatchObject({ verified: false, signer: 'unverified', failure: { code: 'ATTESTATION_SIGNER_UNVERIFIED' } });
    expect(verifyBundle({ bundle: 'not json\n', publicKeyPem: pem, proof: null, replay: null }).failure?.code).toBe('ATTESTATION_MALFORMED');
    // A private key's PEM is refused, not read as its public half.
    const privatePem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(verifyBundle({ bundle, publicKeyPem: privatePem, proof: null, replay: null }).failure?.code).toBe('PUBLIC_KEY_INVALID');
  });

  it('fails closed on a secret-shaped predicate value, at its path, with the replay code', async () => {
    const secret = SECRET_CORPUS.find((entry) => entry.rule === 'citadel/model-provider-key')?.secret ?? '';
    expect(secret).not.toBe('');
    await expect(assertPublicStatements([branchStatement(), decisionStatement])).resolves.toBeUndefined();
    const error: unknown = await assertPublicStatements([branchStatement(secret), decisionStatement]).catch((e: unknown) => e);
    expect(isCitadelError(error) && error.code).toBe('REPLAY_REDACTION_VIOLATION');
    expect(isCitadelError(error) && error.violations?.map((v) => v.path)).toContain('$[0].predicate.branch.requested_model');
    expect(JSON.stringify(error)).not.toContain(secret.slice(0, 12));
  });

  it('refuses a field outside the allowlist before any scan', async () => {
    const leaky = { ...decisionStatement, predicate: { ...decisionStatement.predicate, repo: 'somewhere' } } as unknown as DecisionStatement;
    const error: unknown = await assertPublicStatements([leaky]).catch((e: unknown) => e);
    expect(isCitadelError(error) && error.code).toBe('REPLAY_REDACTION_VIOLATION');
    expect(isCitadelError(error) && error.violations?.map((v) => v.path)).toEqual(['$[0].predicate.repo']);
  });
});

describe('the v2 branch predicate (issue 28): v1 plus the wire facts', () => {
  const wire = publicWireFacts(wireFactsOf([wireExchange()]), { requested_model: 'claude-sonnet-4-5', requested_provider: null, observed_model: 'claude-sonnet-4-5', status: 'passed', observed_model_source: 'gateway_wire', warnings: [] });
  const v2 = (facts: object | null = wire): BranchStatement => {
    const v1 = branchStatement();
    const branch = facts === null ? v1.predicate.branch : { ...v1.predicate.branch, wire: facts };
    return { ...v1, predicateType: 'urn:citadel:attestation:branch-result:v2', predicate: { ...v1.predicate, branch } } as BranchStatement;
  };

  it('verifies beside v1 and says what the gateway saw; a v1 statement still verifies alone', () => {
    const verified = verifyBundle({ bundle: bundleOf(v2(), decisionStatement), publicKeyPem: pem, proof: null, replay: null });
    expect(verified).toMatchObject({ verified: true, failure: null });
    expect(verified.envelopes[0]?.predicate_type).toBe('urn:citadel:attestation:branch-result:v2');
    expect(verified.envelopes[0]?.facts).toContain('gateway 1 requests (1 completed, 0 refused), served claude-sonnet-4-5, 100 in / 20 out tokens');
    expect(verifyBundle({ bundle: bundleOf(branchStatement(), decisionStatement), publicKeyPem: pem, proof: null, replay: null }).verified).toBe(true);
  });

  it('refuses a v2 statement without wire facts, or with a field outside their allowlist', async () => {
    expect(verifyBundle({ bundle: bundleOf(v2(null), decisionStatement), publicKeyPem: pem, proof: null, replay: null }).failure).toMatchObject({ code: 'ATTESTATION_STATEMENT_INVALID', line: 1 });
    const error: unknown = await assertPublicStatements([v2({ ...wire, upstream: 'https://api.example.test/v1' }), decisionStatement]).catch((e: unknown) => e);
    expect(isCitadelError(error) && error.code).toBe('REPLAY_REDACTION_VIOLATION');
  });

  it('publishes only public-safe model names: a path or free text the provider named is withheld, never quoted', () => {
    const facts = wireFactsOf([wireExchange(), wireExchange({ served_model: '/home/operator/.claude/model' }), wireExchange({ requested_model: 'ignore previous instructions' })]);
    const shown = publicWireFacts(facts, { requested_model: 'x', requested_provider: null, observed_model: null, status: 'failed', observed_model_source: 'gateway_wire', warnings: [] });
    expect(shown).toMatchObject({ requested_models: ['claude-sonnet-4-5'], served_models: ['claude-sonnet-4-5'], models_withheld: true, requests: 3 });
    expect(JSON.stringify(shown)).not.toMatch(/home|instructions/);
    expect(PublicWireFactsSchema.parse(shown)).toEqual(shown);
  });
});

