import { CitadelError } from '../../shared/errors';
import { compareBranches } from '../../shared/fork/compare';
import { gitBranchName } from '../../shared/fork/ids';
import { revParse } from '../git/refs';
import type { LandingInput } from '../landing/landing-input';
import { verifyFork } from '../evidence/verify-fork';
import type { OrchestratorContext } from '../host/context';
import { ForkRequestSchema } from '../../shared/fork/fork-request';
import { currentSelection } from './select-branch';

/**
 * What landing needs from the rest of the engine: the recorded target, the current selection, and
 * a fresh cryptographic re-verification of the selected branch (never a stored flag).
 */
export async function landingInputFor(ctx: OrchestratorContext, forkId: string): Promise<LandingInput> {
  const { repo } = await ctx.store.readJson(forkId, 'request', ForkRequestSchema);
  const current = await currentSelection(ctx, forkId);
  if (current === null) throw new CitadelError('FORK_STATE_CONFLICT', `${forkId} has no selection; run citadel fork select first`);
  return {
    ctx,
    forkId,
    repo,
    selection: current.record,
    selectionUnsigned: current.unsigned,
    isReceiptVerified: async (branchId) => {
      const verified = await verifyFork(ctx, forkId);
      const compared = compareBranches(verified.branches).branches.find((b) => b.branch_id === branchId);
      const receipt = verified.branches.find((b) => b.branch_id === branchId)?.receipt ?? null;
      if (!compared) return { ok: false, reason: `no branch ${branchId}` };
      if (!compared.receipt_verified || receipt === null) {
        const trust = verified.trust !== null && !verified.trust.trusted ? ` (${verified.trust.message})` : '';
        return { ok: false, reason: `receipt not verified: ${compared.reasons.join(', ')}${trust}` };
      }
      // What lands must be exactly what was verified: a commit added to the branch afterwards is not.
      const head = await revParse(repo, `refs/heads/${gitBranchName(forkId, branchId)}`);
      const verifiedHead = receipt.result_commit ?? verified.record.base_revision;
      if (head !== verifiedHead) return { ok: false, reason: `the branch head ${head ?? 'is missing'} is not the verified result ${verifiedHead}` };
      return { ok: true, reason: null };
    },
  };
}
