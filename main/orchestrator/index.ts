/**
 * The one door into the engine (ARCHITECTURE.md): one function per operator action, named as its
 * Mission Control channel. The CLI, Mission Control and the demo call only these; whatever an
 * action chains (create then launch, landing input then land, build then render) is chained here.
 */
import type { ForkRecord } from '../../shared/fork/fork-record';
import type { ForkListing } from '../../shared/fork/fork-summary';
import type { LocalProviderReadiness, ReadinessReport, RuntimeReadiness } from '../../shared/runtime/readiness';
import type { SandboxReadiness } from '../../shared/sandbox/sandbox-readiness';
import type { Resumability } from '../../shared/fork/resumability';
import type { OrchestratorContext } from '../host/context';
import { BUILTIN_SANDBOX_BACKENDS } from '../sandbox/registry';
import { withContractStanding } from './contract-standing';
import { listForks as listAll } from './list-forks';
import { localProviderReadiness as localProvidersOf, readinessOfRuntime, readinessReport, sandboxReadinessHere } from './readiness';
import { resumability as resumabilityOf } from './resumability';

export { startFork, resumeFork, resolveBranch, type Collect, type ExecutorSource, type RunInBackground, type StartRequest } from './launch-actions';
export { stopFork } from './stop-fork';
export { cleanFork } from './clean-fork';
export { cleanability } from './cleanability';
export { compareFork } from './compare-fork';
export { selectBranch } from './select-branch';
export { branchDetail } from './branch-detail';
export { forkContainment } from './fork-containment';
export { forkTimeline } from './live-timeline';
export { watchOutsideChanges, type OutsideChangeWatch } from './outside-changes';
export { labelledStatus } from './fork-labels';
export { forkOverview } from './fork-overview';
export { branchWorktree } from './branch-worktree';
export { setupFailures } from './setup-branch';
export { egressRefusals } from './egress-refusals';
export { landingChecks, confirmLanding } from './landing-actions';
export { exportReplay, exportProof, proofProjection } from './export-actions';
export type { PublicArtifact } from '../publish/export-public';
export { previewFork, validateExecutors, validateExecutorFile } from './executor-actions';
export { previewStart } from './preview-start';
export { workflowDocument } from './load-workflow';
export { initRepository, proposeWorkflow } from './init-repository';
export { settingsOf as settings } from './settings';
export { profileSets, saveProfileSet, deleteProfileSet } from './profile-sets';
export { openArtifact } from '../publish/open-artifact';
export { fingerprintOf, importTrustedKey, listTrustedKeys, removeTrustedKey, type TrustedKey } from '../evidence/trust/trusted-keys';
export { attestFork, type AttestationBundle } from '../evidence/attestation/attest-fork';
export { exportIssuerKey } from '../evidence/attestation/issuer-public-key';
export { verifyAttestation, type AttestationFiles } from '../evidence/attestation/verify-files';
export { verifyBundle } from '../evidence/attestation/verify-bundle';
export { branchOutput, branchLog } from './branch-output';
export { followUpDraft } from './follow-up-parent';

/**
 * One fork's record as it is on disk; a fork whose stored contract no longer verifies reads as
 * blocked for it. Branches are listed in the signed set's canonical order (by profile id, so by
 * branch id, as verifyFork orders them), never fork.json's, which is unsigned.
 */
export async function forkStatus(ctx: OrchestratorContext, forkId: string): Promise<ForkRecord> {
  const record = await withContractStanding(ctx, await ctx.store.readRecord(forkId));
  return { ...record, branches: [...record.branches].sort((a, b) => (a.branch_id < b.branch_id ? -1 : a.branch_id > b.branch_id ? 1 : 0)) };
}

/** Every fork under the root, or those in one state; an unreadable record is listed as unknown. */
export async function listForks(ctx: OrchestratorContext, state: ForkListing['state'] | null = null): Promise<ForkListing[]> {
  const forks = await listAll(ctx);
  return state === null ? forks : forks.filter((fork) => fork.state === state);
}

/**
 * What `resumeFork` would find to continue. A fork this host is driving (`drivenHere`) holds the
 * lock only between its steps: it is in progress all along.
 */
export async function resumability(ctx: OrchestratorContext, forkId: string, drivenHere: readonly string[] = []): Promise<Resumability> {
  return drivenHere.includes(forkId) ? { resumable: false, reason: 'in_progress', driver: { by: 'this_process' } } : resumabilityOf(ctx, forkId);
}

/**
 * `citadel runtimes`: each adapter's executable, version and credential names, the local providers,
 * and the containment backend's readiness (the built-in backends unless the context names others).
 */
export function readiness(ctx: Pick<OrchestratorContext, 'adapters' | 'env'> & Partial<Pick<OrchestratorContext, 'sandboxBackends'>>): Promise<ReadinessReport> {
  return readinessReport(ctx.adapters, ctx.env, ctx.sandboxBackends ?? BUILTIN_SANDBOX_BACKENDS);
}

/** The readiness report's parts one at a time, for a view that shows each as it answers. */
export function runtimeReadiness(ctx: Pick<OrchestratorContext, 'adapters' | 'env'>, runtime: string): Promise<RuntimeReadiness> {
  return readinessOfRuntime(ctx.adapters, ctx.env, runtime);
}
export function localProviderReadiness(ctx: Pick<OrchestratorContext, 'env'>): Promise<LocalProviderReadiness[]> {
  return localProvidersOf(ctx.env);
}
export function sandboxReadiness(ctx: Pick<OrchestratorContext, 'env'> & Partial<Pick<OrchestratorContext, 'sandboxBackends'>>): Promise<SandboxReadiness> {
  return sandboxReadinessHere(ctx.sandboxBackends ?? BUILTIN_SANDBOX_BACKENDS, ctx.env);
}
