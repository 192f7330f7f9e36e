import { isBranchStatement, isLineageBranchStatement, type CitadelStatement, type ParentLink } from '../../../shared/publish/attestation';

/** The link, or the first fact of it that differs, in words for `ATTESTATION_PARENT_MISMATCH`. */
export type ParentLinkCheck = { readonly linked: true; readonly link: Omit<ParentLink, 'key_id' | 'linked'> } | { readonly linked: false; readonly reason: string };

/**
 * `citadel verify CHILD --parent PARENT` (issue 32), on two bundles each already verified on its own
 * (every line one fork's, one contract): the child's lineage names the parent bundle's fork, its
 * contract, objective and signer key digests, and a branch it attests with that execution receipt, whose result
 * commit is the child's material. These are the parent's facts that never change; its proof and
 * replay digests do (a later selection or landing), so they are not part of the link.
 */
export function checkParentLink(child: readonly CitadelStatement[], parent: readonly CitadelStatement[]): ParentLinkCheck {
  const mismatch = (reason: string): ParentLinkCheck => ({ linked: false, reason });
  const childContract = child[0]?.predicate.contract;
  const parentFirst = parent[0]?.predicate;
  if (childContract === undefined || parentFirst === undefined) return mismatch('a bundle holds no envelope');
  if (!('lineage' in childContract)) return mismatch('the child bundle carries no lineage: its fork is not a follow-up of any branch');
  const lineage = childContract.lineage;
  // Every v3 line names the same material (checked per bundle); the first is the child's.
  const material = child.find(isLineageBranchStatement)?.predicate.materials[0].digest.gitCommit;
  if (material === undefined) return mismatch('the child bundle attests no branch, so it names no parent result commit');
  if (parentFirst.fork_id !== lineage.parent_fork_id) return mismatch(`the child continues fork ${lineage.parent_fork_id}; the parent bundle attests fork ${parentFirst.fork_id}`);
  if (parentFirst.contract.contract_digest !== lineage.parent_contract_digest) {
    return mismatch(`the child's lineage names parent contract ${lineage.parent_contract_digest}; the parent bundle binds ${parentFirst.contract.contract_digest}`);
  }
  if (parentFirst.contract.objective_digest !== lineage.parent_objective_digest) {
    return mismatch(`the child's lineage names parent objective ${lineage.parent_objective_digest}; the parent bundle binds ${parentFirst.contract.objective_digest}`);
  }
  // Any key a recipient is handed for the parent is not enough: it must be the one the child's issuer saw sign the parent.
  if (parentFirst.contract.signer_public_key_digest !== lineage.parent_signer_public_key_digest) {
    return mismatch(`the child's lineage names parent signer key ${lineage.parent_signer_public_key_digest}; the parent bundle is signed by ${parentFirst.contract.signer_public_key_digest}`);
  }
  const branch = parent.filter(isBranchStatement).find((s) => s.predicate.branch.branch_id === lineage.parent_branch_id);
  if (branch === undefined) return mismatch(`the parent bundle attests no branch ${lineage.parent_branch_id}, the one the child continues`);
  const receipt = branch.predicate.branch.execution_receipt_digest;
  if (receipt !== lineage.parent_execution_receipt_digest) {
    return mismatch(`the child's lineage names execution receipt ${lineage.parent_execution_receipt_digest} for ${lineage.parent_branch_id}; the parent bundle attests ${receipt}`);
  }
  const result = branch.subject[0]?.digest.gitCommit;
  if (result !== material) return mismatch(`the child started from ${material}; the parent bundle attests ${lineage.parent_branch_id}'s result commit ${result ?? 'none'}`);
  return { linked: true, link: { fork_id: lineage.parent_fork_id, branch_id: lineage.parent_branch_id, result_commit: material } };
}
