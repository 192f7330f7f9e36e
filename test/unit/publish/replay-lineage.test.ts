/**
 * Issue 32 in the public replay: a follow-up's contract lineage is shown as ids and digests, through
 * the same redaction scan; never the parent's result commit. A fork without lineage keeps its replay
 * byte-identical (replay-predates-containment).
 */
import { describe, expect, it } from 'vitest';
import type { VerifiedFork } from '../../../main/evidence/verify-fork';
import { sha256Digest } from '../../../shared/digest';
import type { Lineage } from '../../../shared/fork/lineage';
import { predatingForkReplayText } from './support/predating-fork';

const LINEAGE: Lineage = {
  parent_fork_id: 'fork-01jparentparentparentparen',
  parent_branch_id: 'branch-claude',
  parent_contract_digest: sha256Digest('parent contract'),
  parent_execution_receipt_digest: sha256Digest('parent receipt'),
  parent_result_commit: 'c'.repeat(40),
  parent_objective_digest: sha256Digest('parent objective'),
  parent_signer_public_key_digest: sha256Digest('parent key'),
  root_base_revision: 'd'.repeat(40),
};

describe('replay of a follow-up fork', () => {
  it('shows the lineage as ids and digests, without the parent result commit', async () => {
    const withLineage = (fork: VerifiedFork): VerifiedFork => (fork.contract ? { ...fork, contract: { ...fork.contract, lineage: LINEAGE } } : fork);
    const text = await predatingForkReplayText(withLineage);
    expect((JSON.parse(text) as { contract: { lineage?: unknown } }).contract.lineage).toEqual({
      parent_fork_id: LINEAGE.parent_fork_id,
      parent_branch_id: LINEAGE.parent_branch_id,
      parent_contract_digest: LINEAGE.parent_contract_digest,
      parent_execution_receipt_digest: LINEAGE.parent_execution_receipt_digest,
      parent_objective_digest: LINEAGE.parent_objective_digest,
      parent_signer_public_key_digest: LINEAGE.parent_signer_public_key_digest,
    });
    expect(text).not.toContain(LINEAGE.parent_result_commit);
    expect(text).not.toContain('parent_result_commit');
    expect(text).not.toContain(LINEAGE.root_base_revision);
    expect(JSON.parse(await predatingForkReplayText())).not.toHaveProperty('contract.lineage');
  });
});
