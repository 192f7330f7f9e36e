import { forkStatusOf } from '../../shared/fork/fork-status';
import type { ChannelName, ChannelRequest, ChannelResponse } from '../../shared/ipc/contract';
import { parseExecutorFileText } from '../../shared/executors/validate-executor-file';
import { proofProjection } from '../../shared/publish/proof';
import { ProofReportSchema, ReplaySchema } from '../../shared/publish/replay';
import { describeExecutorSet } from '../executors/describe-executor-set';
import { land } from '../landing/land';
import { landingChecks } from '../landing/landing-checks';
import { cleanFork } from '../orchestrator/clean-fork';
import { compareFork } from '../orchestrator/compare-fork';
import type { OrchestratorContext } from '../orchestrator/context';
import { createFork } from '../orchestrator/create-fork';
import { driveFork } from '../orchestrator/drive-fork';
import { landingInputFor } from '../orchestrator/land-fork';
import { listForks } from '../orchestrator/list-forks';
import { readinessReport } from '../orchestrator/readiness';
import { resolveBranch } from '../orchestrator/resolve-branch';
import { resumability } from '../orchestrator/resumability';
import { resumeFork } from '../orchestrator/resume-fork';
import { selectBranch } from '../orchestrator/select-branch';
import { stopFork } from '../orchestrator/stop-fork';
import { buildProof } from '../publish/build-proof';
import { buildReplay } from '../publish/build-replay';
import { renderPublic } from '../publish/export-public';
import type { BackgroundDrives } from './background-drives';
import { branchDetail } from './branch-detail';
import { resolveExecutorChoice } from './executor-choice';
import { openArtifact } from './open-artifact';
import { settingsOf } from './settings';

export type ChannelHandlers = { readonly [C in ChannelName]: (request: ChannelRequest<C>) => Promise<ChannelResponse<C>> };

/**
 * One entry per contract channel (the mapped type makes a missing one a compile error): each takes
 * an already-parsed request and calls one orchestrator function, projecting its result onto the
 * channel's response. No rule of the engine is decided here.
 */
export function channelHandlers(ctx: OrchestratorContext, drives: BackgroundDrives): ChannelHandlers {
  /**
   * Returns once every pending branch is launched; `rest` then runs on in the background, streaming
   * events. The request before it (a fork created, a retry decided) is already recorded, so a launch
   * that fails is reported like any background drive failure (`drive_failed`; resume continues it)
   * and the reply is the fork as recorded, not a refusal of what was done.
   */
  const launchThen = async (forkId: string, rest: () => Promise<unknown>) => {
    try {
      const launched = await driveFork(ctx, forkId, 'none');
      drives.start(forkId, rest);
      return forkStatusOf(launched);
    } catch (error) {
      drives.start(forkId, () => Promise.reject(error));
      return forkStatusOf(await ctx.store.readRecord(forkId));
    }
  };
  const collect = (forkId: string) => () => driveFork(ctx, forkId, 'all');

  return {
    listForks: async ({ state }) => ({ forks: (await listForks(ctx)).filter((fork) => state === null || fork.state === state) }),
    forkStatus: async ({ fork_id }) => forkStatusOf(await ctx.store.readRecord(fork_id)),
    previewFork: async ({ executors }) => {
      const resolved = resolveExecutorChoice(executors);
      return { schema_version: resolved.schemaVersion, executors: describeExecutorSet(resolved.profiles) };
    },
    startFork: async (request) => {
      const created = await createFork(ctx, {
        objective: request.objective,
        repo: request.repo,
        executors: resolveExecutorChoice(request.executors).input,
        workflowFile: request.workflow_file ?? undefined,
        budgetSeconds: request.budget_seconds ?? undefined,
        maxAttempts: request.max_attempts ?? undefined,
      });
      return launchThen(created.record.fork_id, collect(created.record.fork_id));
    },
    stopBranch: async ({ fork_id, branch_id }) => forkStatusOf((await stopFork(ctx, fork_id, branch_id ?? undefined)).record),
    // A drive this host runs holds the lock only between its steps: it is in progress all along.
    resumability: async ({ fork_id }) => (drives.running().includes(fork_id) ? { resumable: false, reason: 'in_progress' } : resumability(ctx, fork_id)),
    resumeFork: ({ fork_id }) => launchThen(fork_id, () => resumeFork(ctx, fork_id)),
    resolveBranch: async ({ fork_id, branch_id, resolution }) => {
      const resolved = await resolveBranch(ctx, fork_id, branch_id, resolution);
      // As `citadel fork resolve --retry`: the fresh attempt runs now.
      return resolution === 'retry' ? launchThen(fork_id, collect(fork_id)) : forkStatusOf(resolved);
    },
    cleanFork: async ({ fork_id }) => {
      const { branches } = await cleanFork(ctx, fork_id);
      return { fork_id, branches: [...branches] };
    },
    branchDetail: ({ fork_id, branch_id }) => branchDetail(ctx, fork_id, branch_id),
    compareFork: async ({ fork_id }) => {
      const { outcome, recommended_branch_id, reasons, branches } = await compareFork(ctx, fork_id);
      return { outcome, recommended_branch_id, reasons, branches };
    },
    selectBranch: ({ fork_id, branch_id, reason, actor }) => selectBranch(ctx, fork_id, { branchId: branch_id, actor, reason }),
    landingChecks: async ({ fork_id }) => {
      const { checks, token } = await landingChecks(await landingInputFor(ctx, fork_id));
      return { checks, token };
    },
    confirmLanding: async ({ fork_id, token }) => land(await landingInputFor(ctx, fork_id), token),
    exportReplay: async ({ fork_id }) => renderPublic(await buildReplay(ctx, fork_id), ReplaySchema),
    exportProof: async ({ fork_id }) => renderPublic(await buildProof(ctx, fork_id), ProofReportSchema),
    proofProjection: async ({ fork_id }) => proofProjection(await buildProof(ctx, fork_id)),
    openArtifact: async ({ text }) => openArtifact(text),
    validateExecutors: async ({ text }) => {
      const file = parseExecutorFileText(text);
      if (!file.ok) throw file.error;
      return describeExecutorSet(file.value.executors);
    },
    readiness: () => readinessReport(ctx.adapters, ctx.env),
    settings: () => settingsOf(ctx),
  };
}
