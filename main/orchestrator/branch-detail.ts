import { CitadelError, isCitadelError } from '../../shared/errors';
import type { BranchRecord, ForkRecord } from '../../shared/fork/fork-record';
import type { ExecutionReceipt } from '../../shared/fork/receipts';
import type { RetryPlan } from '../../shared/fork/retry-plan';
import type { BranchDetail } from '../../shared/ipc/contract';
import { verifyFork } from '../evidence/verify-fork';
import { diffText } from '../git/diff';
import type { OrchestratorContext } from '../host/context';
import { ForkRequestSchema } from '../../shared/fork/fork-request';
import { branchRefusals } from './egress-refusals';
import { retryPlan } from './resolve-branch';

// A diff viewer cannot usefully render more; the summary still counts every file and line.
const MAX_DIFF_BYTES = 4 * 1024 * 1024;

/**
 * One branch as freshly re-verified from disk (never a stored flag): every fact shown beside the
 * diff comes from its verified receipt, or is null. The diff is the private one, base to the
 * verified result commit, for the local viewer only.
 */
export async function branchDetail(ctx: OrchestratorContext, forkId: string, branchId: string): Promise<BranchDetail> {
  const verified = await verifyFork(ctx, forkId);
  const branch = verified.record.branches.find((b) => b.branch_id === branchId);
  const evidence = verified.branches.find((b) => b.branch_id === branchId);
  if (!branch || !evidence) throw new CitadelError('BRANCH_NOT_FOUND', `no branch ${branchId} in ${forkId}`, { details: { fork_id: forkId, branch_id: branchId } });
  const receipt = evidence.receipt;
  const refusals = await branchRefusals(ctx, forkId, branch);
  const retry = branch.state === 'blocked' ? await retryOf(ctx, verified.record, branch) : undefined;
  return {
    fork_id: forkId,
    branch_id: branchId,
    runtime: branch.runtime,
    state: branch.state,
    failure_code: branch.failure_code,
    receipt_verified: evidence.receipt_verified,
    verification_reasons: [...evidence.reasons],
    model: evidence.model_proof,
    telemetry: receipt?.telemetry ?? null,
    verifier: receipt?.verifier ?? null,
    diff_summary: receipt?.diff ?? null,
    diff_text: receipt === null ? null : await privateDiff(ctx, forkId, receipt),
    duration_ms: receipt?.duration_ms ?? null,
    containment: receipt?.containment ?? null,
    ...(receipt?.wire === undefined ? {} : { wire: receipt.wire }),
    ...(refusals.length === 0 ? {} : { egress_refusals: refusals }),
    ...(retry === undefined ? {} : { retry }),
  };
}

/** What Retry would do to a blocked branch; null when its contract cannot be read (Retry is refused then too). */
async function retryOf(ctx: OrchestratorContext, record: ForkRecord, branch: BranchRecord): Promise<RetryPlan | null> {
  try {
    return await retryPlan(ctx, record, branch);
  } catch (error) {
    if (isCitadelError(error)) return null;
    throw error;
  }
}

/** null when the branch committed nothing, or the target repository no longer has the commits. */
async function privateDiff(ctx: OrchestratorContext, forkId: string, receipt: ExecutionReceipt): Promise<string | null> {
  if (receipt.result_commit === null) return null;
  try {
    const { repo } = await ctx.store.readJson(forkId, 'request', ForkRequestSchema);
    const diff = await diffText(repo, receipt.base_revision, receipt.result_commit, MAX_DIFF_BYTES);
    if (!diff.truncated) return diff.text;
    return `${diff.text}[citadel: the diff is cut at ${Buffer.byteLength(diff.text)} of ${diff.bytes} bytes; git diff ${receipt.base_revision} ${receipt.result_commit} shows all of it]\n`;
  } catch (error) {
    if (isCitadelError(error)) return null;
    throw error;
  }
}
