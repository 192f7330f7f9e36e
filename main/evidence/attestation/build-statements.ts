import type { Digest } from '../../../shared/digest';
import { CitadelError } from '../../../shared/errors';
import type { BranchEvidence } from '../../../shared/fork/compare';
import { gitBranchName } from '../../../shared/fork/ids';
import type { ExecutionReceipt } from '../../../shared/fork/receipts';
import {
  BRANCH_PREDICATE_TYPE,
  BRANCH_PREDICATE_TYPE_V2,
  BRANCH_PREDICATE_TYPE_V3,
  DECISION_PREDICATE_TYPE,
  DECISION_PREDICATE_TYPE_V2,
  IN_TOTO_STATEMENT_TYPE,
  landedSubjectName,
  type BranchPredicateV1,
  type BranchStatement,
  type CommitSubject,
  type DecisionPredicate,
  type DecisionPredicateV1,
  type DecisionStatement,
} from '../../../shared/publish/attestation';
import type { ProofReport, Replay } from '../../../shared/publish/replay';
import type { VerifiedFork } from '../verify-fork';

/** What the statements are built from: the fork verified now, its proof report (with the replay), and what they digest to. */
export interface AttestationInputs {
  readonly forkId: string;
  readonly verified: VerifiedFork;
  readonly proof: ProofReport;
  readonly artifacts: { readonly replay_digest: Digest; readonly proof_digest: Digest };
  /** The landed merge commit, when the landing stands. */
  readonly mergeCommit: string | null;
  readonly keyid: Digest;
}

/**
 * One statement per branch with a verified receipt, then the decision's. Every fact comes from the
 * verified receipts or from the proof report's replay (the public allowlist); the subjects are the
 * commits those facts are about, which only the attestation names.
 */
export function buildStatements(inputs: AttestationInputs): [...BranchStatement[], DecisionStatement] {
  const { forkId, verified, proof, artifacts } = inputs;
  const replay = proof.replay;
  const { lineage, ...facts } = replay.contract;
  const contract = { ...facts, signer_public_key_digest: inputs.keyid };
  const material = parentMaterial(forkId, lineage, verified);
  // attestFork has refused a fork with none: at least one branch is attested, so every statement has a subject.
  const attested = verified.branches.filter((b): b is BranchEvidence & { receipt: ExecutionReceipt } => b.receipt_verified && b.receipt !== null);
  const branches = attested.map((evidence): BranchStatement => {
    const shown = replay.branches.find((b) => b.branch_id === evidence.branch_id);
    // The proof report was built from its own read of the evidence: both reads must agree.
    if (shown?.execution_receipt_digest !== evidence.execution_receipt_digest || evidence.execution_receipt_digest === null) throw changed(forkId);
    const receipt = evidence.receipt;
    const v1: BranchPredicateV1 = {
      fork_id: forkId,
      contract,
      branch: {
        branch_id: shown.branch_id,
        profile_id: shown.profile_id,
        runtime: shown.runtime,
        provider: shown.provider,
        requested_model: shown.requested_model,
        observed_model: shown.observed_model,
        model_proof: shown.model_proof,
        executor_profile_digest: shown.executor_profile_digest,
        verifier: shown.verifier,
        ...(shown.containment === undefined ? {} : { containment: shown.containment }),
        attempt: receipt.attempt,
        status: receipt.status,
        failure_code: receipt.failure_code,
        base_revision: receipt.base_revision,
        result_commit: receipt.result_commit,
        execution_receipt_digest: evidence.execution_receipt_digest,
        fork_receipt_digest: evidence.fork_receipt_digest,
      },
      artifacts,
    };
    const subject = [resultSubject(forkId, evidence.branch_id, receipt)];
    // A follow-up's branch gets v3: its lineage, and the parent's result commit it started from as a material.
    if (lineage !== undefined && material !== null) {
      const branch = { ...v1.branch, ...(shown.wire === undefined ? {} : { wire: shown.wire }) };
      return { _type: IN_TOTO_STATEMENT_TYPE, subject, predicateType: BRANCH_PREDICATE_TYPE_V3, predicate: { ...v1, contract: { ...contract, lineage }, branch, materials: [material] } };
    }
    // A branch that ran through a gateway gets v2, carrying the wire facts; every other keeps v1, unchanged.
    if (shown.wire === undefined) return { _type: IN_TOTO_STATEMENT_TYPE, subject, predicateType: BRANCH_PREDICATE_TYPE, predicate: v1 };
    return { _type: IN_TOTO_STATEMENT_TYPE, subject, predicateType: BRANCH_PREDICATE_TYPE_V2, predicate: { ...v1, branch: { ...v1.branch, wire: shown.wire } } };
  });
  if (replay.landing.landed !== (inputs.mergeCommit !== null)) throw changed(forkId);
  const landed: CommitSubject[] = inputs.mergeCommit === null ? [] : [{ name: landedSubjectName(forkId), digest: { gitCommit: inputs.mergeCommit } }];
  const predicate: DecisionPredicateV1 = {
    fork_id: forkId,
    contract,
    branches: verified.branches.map((b) => ({ branch_id: b.branch_id, receipt_verified: b.receipt_verified, execution_receipt_digest: b.execution_receipt_digest })),
    comparison: replay.comparison,
    selection: v1Selection(replay.selection),
    landing: { ...replay.landing, merge_commit: inputs.mergeCommit },
    artifacts,
  };
  const subject = [...branches.flatMap((s) => s.subject), ...landed];
  // A follow-up's decision gets v2, whose contract carries the lineage as every line of its bundle does.
  const decision: DecisionStatement =
    lineage === undefined
      ? { _type: IN_TOTO_STATEMENT_TYPE, subject, predicateType: DECISION_PREDICATE_TYPE, predicate }
      : { _type: IN_TOTO_STATEMENT_TYPE, subject, predicateType: DECISION_PREDICATE_TYPE_V2, predicate: { ...predicate, contract: { ...contract, lineage } } };
  return [...branches, decision];
}

/**
 * A follow-up's material: its parent branch's result commit, from the verified contract (the replay
 * shows the lineage without it). Null for a first fork. Both reads of the lineage must agree.
 */
function parentMaterial(forkId: string, shown: Replay['contract']['lineage'], verified: VerifiedFork): CommitSubject | null {
  const lineage = verified.contract?.lineage;
  if (shown === undefined && lineage === undefined) return null;
  if (shown === undefined || lineage === undefined || shown.parent_fork_id !== lineage.parent_fork_id || shown.parent_branch_id !== lineage.parent_branch_id) throw changed(forkId);
  return { name: gitBranchName(lineage.parent_fork_id, lineage.parent_branch_id), digest: { gitCommit: lineage.parent_result_commit } };
}

/** A branch's result: its result commit, or the base revision when it committed nothing (as landing reads it). */
export function resultSubject(forkId: string, branchId: string, receipt: Pick<ExecutionReceipt, 'result_commit' | 'base_revision'>): CommitSubject {
  return { name: gitBranchName(forkId, branchId), digest: { gitCommit: receipt.result_commit ?? receipt.base_revision } };
}

function changed(forkId: string): CitadelError {
  return new CitadelError('FORK_STATE_CONFLICT', `the evidence of fork ${forkId} changed while it was being attested; run the command again`, { details: { fork_id: forkId } });
}

/**
 * The selection as the v1 decision predicate has it (shared/publish/attestation.ts): the replay's,
 * without its later `against_evidence` mark, which the replay this predicate binds by digest carries.
 */
function v1Selection({ selected, branch_id, selected_at, problem, signature }: Replay['selection']): DecisionPredicate['selection'] {
  return { selected, branch_id, selected_at, ...(problem === undefined ? {} : { problem }), ...(signature === undefined ? {} : { signature }) };
}
