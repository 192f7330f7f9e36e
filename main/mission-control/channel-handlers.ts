import { forkListEntryOf } from '../../shared/fork/fork-summary-of';
import { selectedAgainstEvidence } from '../../shared/fork/selection-evidence';
import type { ChannelName, ChannelRequest, ChannelResponse } from '../../shared/ipc/contract';
import type { OrchestratorContext } from '../host/context';
import * as door from '../orchestrator';
import type { BackgroundDrives } from './background-drives';

export type ChannelHandlers = { readonly [C in ChannelName]: (request: ChannelRequest<C>) => Promise<ChannelResponse<C>> };

/**
 * One entry per contract channel (the mapped type makes a missing one a compile error): each takes
 * an already-parsed request and calls one orchestrator door function, projecting its result onto
 * the channel's response. No rule of the engine is decided here.
 */
export function channelHandlers(ctx: OrchestratorContext, drives: BackgroundDrives): ChannelHandlers {
  // Launch now, collect in the background: the reply comes once every pending branch is launched (a start's once its fork is recorded).
  const background: door.Collect = { background: (forkId, rest) => drives.start(forkId, rest) };

  return {
    listForks: async ({ state }) => ({ forks: (await door.listForks(ctx, state)).map(forkListEntryOf) }),
    forkStatus: async ({ fork_id }) => door.labelledStatus(ctx, await door.forkStatus(ctx, fork_id)),
    forkOverview: ({ fork_id }) => door.forkOverview(ctx, fork_id),
    forkContainment: ({ fork_id }) => door.forkContainment(ctx, fork_id),
    forkTimeline: ({ fork_id }) => door.forkTimeline(ctx, fork_id),
    previewFork: (request) => door.previewStart(ctx, request),
    workflowDocument: ({ workflow_file, repo }) => door.workflowDocument(workflow_file, repo ?? null),
    proposeWorkflow: ({ repo }) => door.proposeWorkflow(repo),
    verifyAttestation: async ({ bundle, public_key_pem }) => door.verifyBundle({ bundle, publicKeyPem: public_key_pem, proof: null, replay: null }),
    startFork: async (request) => {
      const started = await door.startFork(
        ctx,
        {
          objective: request.objective,
          repo: request.repo,
          executors: { kind: 'choice', choice: request.executors },
          workflowFile: request.workflow_file ?? undefined,
          workflow: request.workflow ?? undefined,
          budgetSeconds: request.budget_seconds ?? undefined,
          maxAttempts: request.max_attempts ?? undefined,
          budgetTokens: request.budget_tokens ?? undefined,
          containment: request.containment ?? 'auto',
          includeConfirmed: request.include_confirmed ?? undefined,
          workflowConfirmed: request.workflow_confirmed ?? undefined,
          from: request.from ?? undefined,
        },
        { collect: background },
      );
      return door.labelledStatus(ctx, started.record);
    },
    followUpDraft: (ref) => door.followUpDraft(ctx, ref),
    stopBranch: async ({ fork_id, branch_id }) => door.labelledStatus(ctx, (await door.stopFork(ctx, fork_id, branch_id ?? undefined)).record),
    resumability: ({ fork_id }) => door.resumability(ctx, fork_id, drives.running()),
    resumeFork: async ({ fork_id }) => door.labelledStatus(ctx, await door.resumeFork(ctx, fork_id, background)),
    // As `citadel fork resolve --retry`: the fresh attempt runs now.
    resolveBranch: async ({ fork_id, branch_id, resolution }) => door.labelledStatus(ctx, await door.resolveBranch(ctx, fork_id, branch_id, resolution, background)),
    cleanFork: async ({ fork_id }) => {
      const { branches } = await door.cleanFork(ctx, fork_id);
      return { fork_id, branches: [...branches] };
    },
    cleanability: ({ fork_id }) => door.cleanability(ctx, fork_id),
    branchDetail: ({ fork_id, branch_id }) => door.branchDetail(ctx, fork_id, branch_id),
    compareFork: async ({ fork_id }) => {
      const { outcome, recommended_branch_id, reasons, branches } = await door.compareFork(ctx, fork_id);
      return { outcome, recommended_branch_id, reasons, branches };
    },
    selectBranch: ({ fork_id, branch_id, reason, actor, against_evidence }) => door.selectBranch(ctx, fork_id, { branchId: branch_id, actor, reason, againstEvidence: against_evidence }),
    landingChecks: async ({ fork_id }) => {
      const { checks, token, plan } = await door.landingChecks(ctx, fork_id);
      return { checks, token, against_evidence: selectedAgainstEvidence(plan), continues: plan.continues ?? null };
    },
    confirmLanding: ({ fork_id, token }) => door.confirmLanding(ctx, fork_id, token),
    exportReplay: ({ fork_id }) => door.exportReplay(ctx, fork_id),
    exportProof: ({ fork_id }) => door.exportProof(ctx, fork_id),
    proofProjection: ({ fork_id }) => door.proofProjection(ctx, fork_id),
    openArtifact: async ({ text }) => door.openArtifact(text),
    validateExecutors: async ({ text }) => door.validateExecutors(ctx, text),
    readiness: () => door.readiness(ctx),
    settings: () => door.settings(ctx),
    runtimeReadiness: ({ runtime }) => door.runtimeReadiness(ctx, runtime),
    localProviderReadiness: async () => ({ providers: await door.localProviderReadiness(ctx) }),
    sandboxReadiness: () => door.sandboxReadiness(ctx),
    profileSets: async () => ({ sets: await door.profileSets(ctx) }),
    saveProfileSet: async ({ name, file }) => ({ sets: await door.saveProfileSet(ctx, name, file) }),
    deleteProfileSet: async ({ name }) => ({ sets: await door.deleteProfileSet(ctx, name) }),
    branchOutput: ({ fork_id, branch_id }) => door.branchOutput(ctx, fork_id, branch_id),
    branchLog: ({ fork_id, branch_id, which }) => door.branchLog(ctx, fork_id, branch_id, which),
  };
}
