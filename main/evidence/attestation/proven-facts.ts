import { describeContainment } from '../../../shared/fork/containment-display';
import type { BranchPredicate, DecisionPredicate } from '../../../shared/publish/attestation';
import type { PublicWireFacts } from '../../../shared/publish/public-wire';
import type { ReplayLineage } from '../../../shared/publish/replay';

/** What one verified branch envelope proves about its subject, one fact per line (`citadel verify`). */
export function branchFacts(p: BranchPredicate): string[] {
  const b = p.branch;
  const steps = b.verifier.steps.map((s) => `${s.id} ${s.status}`).join(', ');
  return [
    `fork ${p.fork_id}, branch ${b.branch_id} (profile ${b.profile_id}, runtime ${b.runtime}), attempt ${b.attempt}`,
    b.result_commit === null ? `no commit: the result is the base revision ${b.base_revision}` : `result commit ${b.result_commit} on base revision ${b.base_revision}`,
    `status ${b.status}${b.failure_code === null ? '' : ` (${b.failure_code})`}`,
    `verifier ${b.verifier.status}${steps === '' ? '' : `: ${steps}`}`,
    `model proof ${b.model_proof}: requested ${b.requested_model}${b.provider === null ? '' : ` via ${b.provider}`}, observed ${b.observed_model ?? 'nothing'}`,
    `containment ${describeContainment(b.containment ?? null, true).text}`,
    ...('wire' in b && b.wire !== undefined ? [wireFact(b.wire)] : []),
    `execution receipt ${b.execution_receipt_digest}${b.fork_receipt_digest === null ? '' : `, fork receipt ${b.fork_receipt_digest}`}`,
    `contract ${p.contract.contract_digest}, executor profile ${b.executor_profile_digest ?? 'none (schema 1)'}`,
    ...('materials' in p ? lineageFacts(p.contract.lineage, p.materials[0].digest.gitCommit) : []),
  ];
}

/** A follow-up's link to its parent (issue 32), as its contract binds it; `citadel verify --parent` checks it against the parent's bundle. */
function lineageFacts(l: ReplayLineage, parentResult: string | null): string[] {
  return [
    `follow-up of fork ${l.parent_fork_id}, branch ${l.parent_branch_id}${parentResult === null ? '' : `, from its result commit ${parentResult}`}`,
    `parent contract ${l.parent_contract_digest}, parent execution receipt ${l.parent_execution_receipt_digest}, parent objective ${l.parent_objective_digest}`,
  ];
}

/** The provider gateway's witness of a v2 branch, in one line. */
function wireFact(w: PublicWireFacts): string {
  const models = w.served_models.length === 0 ? 'no model named' : `served ${w.served_models.join(', ')}`;
  const flags = [w.budget_exceeded ? 'token budget exceeded' : '', w.credential_failed ? 'credential failed' : '', w.models_withheld ? 'a model name withheld' : ''].filter(Boolean);
  return `gateway ${w.requests} requests (${w.completed} completed, ${w.refused} refused), ${models}, ${w.input_tokens} in / ${w.output_tokens} out tokens${w.usage_complete ? '' : ' (at least)'}${flags.length === 0 ? '' : `; ${flags.join(', ')}`}`;
}

/** What the decision envelope proves: comparison, selection and landing as they stood when attested. */
export function decisionFacts(p: DecisionPredicate): string[] {
  const verified = p.branches.filter((b) => b.receipt_verified).length;
  const { selection, landing } = p;
  return [
    `fork ${p.fork_id}: ${verified} of ${p.branches.length} branches have a verified receipt`,
    `comparison ${p.comparison.outcome}${p.comparison.recommended_branch_id === null ? '' : `, recommends ${p.comparison.recommended_branch_id}`}`,
    selection.selected ? `selected ${selection.branch_id ?? '?'} at ${selection.selected_at ?? '?'}` : `not selected${selection.problem ? ` (${selection.problem})` : ''}`,
    landing.landed ? `landed at ${landing.landed_at ?? '?'} as merge commit ${landing.merge_commit ?? '?'}` : `not landed${landing.problem ? ` (${landing.problem})` : ''}`,
    `replay ${p.artifacts.replay_digest}, proof report ${p.artifacts.proof_digest}`,
    ...('lineage' in p.contract ? lineageFacts(p.contract.lineage, null) : []),
  ];
}
