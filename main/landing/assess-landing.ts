import type { LandingChecksResult } from '../../shared/fork/landing';
import { gitBranchName } from '../../shared/fork/ids';
import { evaluateChecks, type Confirmation } from './evaluate-checks';
import type { LandingInput, ReceiptVerdict } from './landing-input';
import type { LandingJournalState } from './landing-journal';
import { targetFacts } from './target-facts';
import { boundContract } from './target-identity';

/** Gathers every fact afresh (record, target, receipt) and judges them. Call it holding the fork lock. */
export async function assessLanding(input: LandingInput, landing: LandingJournalState, confirm: Confirmation | null): Promise<LandingChecksResult> {
  const record = await input.ctx.store.readRecord(input.forkId);
  const contract = await boundContract(input.ctx.store, record);
  const [target, receipt] = await Promise.all([
    targetFacts(input.repo, gitBranchName(record.fork_id, input.selection.branch_id), record.base_revision, contract?.target_repository_digest ?? null),
    receiptVerdict(input),
  ]);
  const lineage = contract?.lineage ?? null;
  return evaluateChecks({ record, selection: input.selection, selectionUnsigned: input.selectionUnsigned === true, landing, repo: input.repo, target, receipt, lineage }, confirm);
}

// A verifier that throws has not verified anything: the check fails with its message.
async function receiptVerdict(input: LandingInput): Promise<ReceiptVerdict> {
  try {
    return await input.isReceiptVerified(input.selection.branch_id);
  } catch (error) {
    return { ok: false, reason: `the receipt could not be verified: ${error instanceof Error ? error.message : String(error)}` };
  }
}
