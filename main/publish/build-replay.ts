import { digestOf } from '../../shared/digest';
import { compareBranches } from '../../shared/fork/compare';
import { publicContainment } from '../../shared/fork/containment-display';
import { publicWireFacts } from '../../shared/publish/public-wire';
import type { Lineage } from '../../shared/fork/lineage';
import type { Replay, ReplayLineage } from '../../shared/publish/replay';
import { verifyFork, type VerifiedFork } from '../evidence/verify-fork';
import type { OrchestratorContext } from '../host/context';
import { standingLanding, standingSelection } from '../landing/decision-standing';

/**
 * The public replay, from the allowlist only and from freshly verified evidence. It reads; it never
 * rewrites a stored record. Determinism: no generation time, and canonical key order on output.
 */
export async function buildReplay(ctx: OrchestratorContext, forkId: string, verified?: VerifiedFork): Promise<Replay> {
  const fork = verified ?? (await verifyFork(ctx, forkId));
  const { record, contract } = fork;
  const comparison = compareBranches(fork.branches);
  // Decision records are unsigned files: shown only when they stand against the verified facts.
  const selection = await standingSelection(ctx, forkId, comparison.branches);
  const landing = await standingLanding(ctx.store, fork, forkId);
  const part = (value: unknown): string => digestOf(value ?? null);
  return {
    schema_version: 1,
    kind: 'citadel_replay',
    fork: {
      fork_id: record.fork_id,
      schema_version: record.schema_version,
      demo: record.demo,
      state: record.state,
      created_at: record.created_at,
      history: record.history,
      // Recorded, not signed: kept (the spec lists transitions and times) and labelled so.
      ...(contract?.fork_id === undefined ? {} : { record_facts: 'unverified' as const }),
    },
    contract: {
      contract_digest: record.contract_digest,
      objective_digest: contract?.objective_digest ?? part(null),
      scope_digest: part(contract?.scope),
      policy_digest: part(contract?.policy),
      budget_digest: part(contract?.budget),
      workflow_digest: part(contract?.workflow),
      verifier_digest: part(contract?.verifier),
      executor_set_digest: record.executor_set_digest,
      signer_public_key_digest: contract && 'signer_public_key_digest' in contract ? contract.signer_public_key_digest : null,
      // Absent, not null, for a fork that predates containment: its replay stays byte-identical.
      ...(contract?.containment ? { containment: publicContainment(contract.containment) } : {}),
      ...(contract?.lineage ? { lineage: replayLineage(contract.lineage) } : {}),
    },
    branches: fork.branches.map((evidence) => {
      const branch = record.branches.find((b) => b.branch_id === evidence.branch_id);
      const receipt = evidence.receipt;
      return {
        branch_id: evidence.branch_id,
        profile_id: evidence.profile_id,
        runtime: evidence.runtime,
        provider: evidence.model_proof.requested_provider,
        requested_model: evidence.model_proof.requested_model,
        observed_model: evidence.model_proof.observed_model,
        model_proof: evidence.model_proof.status,
        executor_profile_digest: branch?.executor_profile_digest ?? null,
        state: branch?.state ?? 'unknown',
        failure_code: branch?.failure_code ?? null,
        attempt: branch?.attempt ?? 1,
        history: branch?.history ?? [],
        receipt_verified: evidence.receipt_verified,
        verification_reasons: [...evidence.reasons],
        execution_receipt_digest: evidence.execution_receipt_digest,
        fork_receipt_digest: evidence.fork_receipt_digest,
        verifier: {
          status: receipt?.verifier.status ?? 'unknown',
          steps: (receipt?.verifier.steps ?? []).map((s) => ({ id: s.id, status: s.status, exit_code: s.exit_code, timed_out: s.timed_out })),
        },
        ...(receipt?.containment ? { containment: receipt.containment } : {}),
        // Absent without a gateway, so every earlier replay stays byte-identical.
        ...(receipt?.wire ? { wire: publicWireFacts(receipt.wire, evidence.model_proof) } : {}),
      };
    }),
    comparison: { outcome: comparison.outcome, recommended_branch_id: comparison.recommended_branch_id },
    // A decision record that does not stand is not shown, and the replay says why (absent otherwise, so replays without one stay byte-identical).
    selection: {
      selected: selection.holds !== null,
      branch_id: selection.holds?.branch_id ?? null,
      selected_at: selection.holds?.selected_at ?? null,
      ...(selection.problem === null ? {} : { problem: selection.problem }),
      // A selection made before selections were signed: it stands on the journal alone, and says so.
      ...(selection.unsigned ? { signature: 'unsigned' as const } : {}),
      // Made against the evidence, acknowledged and signed: the fact, not the operator's words.
      ...(selection.holds?.against_evidence === undefined ? {} : { against_evidence: true as const }),
    },
    landing: { landed: landing.holds !== null, landed_at: landing.holds?.landed_at ?? null, ...(landing.problem === null ? {} : { problem: landing.problem }) },
  };
}

/**
 * A follow-up's link to its parent (issue 32), from its verified contract; absent for a first fork,
 * so every earlier replay stays byte-identical. The parent's result commit is repository identity
 * and stays out (the attestation names it, as a material). The parent's proof digest is not bound
 * either: a parent's proof changes when it is later selected or landed, while its contract digest
 * and the branch's execution receipt digest never do, so those two (with the result commit in the
 * attestation) are the stable link `citadel verify --parent` checks.
 */
function replayLineage(lineage: Lineage): ReplayLineage {
  return {
    parent_fork_id: lineage.parent_fork_id,
    parent_branch_id: lineage.parent_branch_id,
    parent_contract_digest: lineage.parent_contract_digest,
    parent_execution_receipt_digest: lineage.parent_execution_receipt_digest,
    parent_objective_digest: lineage.parent_objective_digest,
    parent_signer_public_key_digest: lineage.parent_signer_public_key_digest,
  };
}
