import { digestOf, sha256Digest } from '../../shared/digest';
import { CitadelError } from '../../shared/errors';
import { branchIdFor } from '../../shared/executors/executor-set-description';
import { canonicalProfileOrder, executorSetDigest, profileDigest } from '../../shared/executors/executor-digests';
import { synthesizeLegacyProfiles } from '../../shared/executors/legacy-runtimes';
import type { RuntimeProfile } from '../../shared/executors/runtime-profile';
import type { Contract, ContractV1, ContractV2 } from '../../shared/fork/contract';
import type { ParentRef } from '../../shared/fork/lineage';
import { ForkRecordSchema, type ForkRecord } from '../../shared/fork/fork-record';
import { gitBranchName } from '../../shared/fork/ids';
import { repositoryInfo } from '../git/repository';
import { targetRepositoryDigest } from '../landing/target-identity';
import { writePrivateFile, writePrivateJson } from '../store/atomic-file';
import { resolveWorktreeIncludes, storeWorktreeIncludes } from '../workspace/worktree-include';
import type { OrchestratorContext } from '../host/context';
import type { ForkRequest, SignerRecord } from '../../shared/fork/fork-request';
import type { ContainmentChoice } from '../../shared/fork/containment-facts';
import { includeListOf, type IncludeListEntry } from '../../shared/fork/include-confirmation';
import { validBudget } from './budget-numbers';
import { contractContainment } from './branch-containment';
import { assertDeliveryNamespaceFree } from './delivery-namespace';
import { assertIncludesConfirmed, keepIncludeConfirmation, type IncludeConfirmed } from './include-confirmation';
import { resolveWorkflow, type LoadedWorkflow } from './load-workflow';
import { followUpParent, followUpWorkflow } from './follow-up-parent';
import type { ExecutorInput } from './executor-input';
import { assertWorkflowConfirmed, keepWorkflowConfirmation, type WorkflowConfirmed } from './workflow-confirmation';
import { withRepositoryConfig } from '../../shared/fork/workflow-proposal';
import { safeNpmCacheRoot } from './setup-branch';
import { usesNpmConfig } from '../setup/package-toolchain';
import { newForkId } from './new-fork-id';
import { adapterFor } from '../runtimes/registry';
import { profileFor } from '../runtimes/adapter-contract/runtime-adapter';

export type { ExecutorInput } from './executor-input';

export interface CreateForkInput {
  readonly objective: string;
  /** Absent only for a follow-up (`from`), which then runs its parent's executor set. */
  readonly executors?: ExecutorInput | undefined;
  /** Absent only for a follow-up, which lands in its parent's repository. */
  readonly repo?: string | undefined;
  /**
   * Issue 32: the branch this fork continues. Its result commit is the base revision; without a
   * workflow named, the parent's frozen workflow, verifier and protected paths; without a budget, its budget.
   */
  readonly from?: ParentRef | undefined;
  readonly workflowFile?: string | undefined;
  /** The New Fork editor's workflow (untrusted, checked against the shared schema), instead of a file. */
  readonly workflow?: unknown;
  readonly budgetSeconds?: number | undefined;
  /** Attempts each branch may have, its first included (the budget's max_attempts). */
  readonly maxAttempts?: number | undefined;
  /** Issue 28: input plus output tokens each branch may spend through its provider gateway (`--budget-tokens`). */
  readonly budgetTokens?: number | undefined;
  readonly demo?: boolean;
  /** `auto` (the default): the platform's sandbox, or SANDBOX_UNAVAILABLE; `runtime-only`: the operator's explicit choice. */
  readonly containment?: ContainmentChoice | undefined;
  /** The operator's confirmation of the files `.worktreeinclude` copies; without it, a list not confirmed earlier is refused. */
  readonly includeConfirmed?: IncludeConfirmed | undefined;
  /** The operator's confirmation of the repository's own workflow file, used because no workflow was named; without it, a file not confirmed earlier is refused. */
  readonly workflowConfirmed?: WorkflowConfirmed | undefined;
}

export interface CreatedFork {
  readonly record: ForkRecord;
  /** The target had uncommitted changes; they are not part of the fork (it starts from HEAD, or a follow-up from its parent's result). */
  readonly repoDirty: boolean;
  /** The ignored files `.worktreeinclude` copies into each worktree (names and sizes), for the operator to see. */
  readonly worktreeInclude: readonly IncludeListEntry[];
  /** The repository's own workflow file, when the fork runs it because no workflow was named (say so); else null. */
  readonly workflowFoundInRepository: string | null;
}

const MAX_OBJECTIVE_BYTES = 64 * 1024;

/**
 * Freezes the request into an immutable contract and writes the fork's private state. Every input
 * is validated before anything is written; nothing here touches the target repository.
 */
export async function createFork(ctx: OrchestratorContext, input: CreateForkInput): Promise<CreatedFork> {
  const objective = validObjective(input.objective);
  const parent = input.from === undefined ? null : await followUpParent(ctx, input.from, input.repo);
  const executors = input.executors ?? parent?.executors;
  if (executors === undefined) throw new CitadelError('EXECUTOR_SELECTION_MISSING', 'name the executors (--runtimes or --executors)');
  const { profiles, schemaVersion } = resolveProfiles(executors, ctx);
  // A follow-up keeps each of its parent's budget numbers that is not named again.
  const inherited = parent?.contract.budget;
  const budget = validBudget(input.budgetSeconds ?? inherited?.max_duration_seconds, input.maxAttempts ?? inherited?.max_attempts, input.budgetTokens ?? inherited?.max_tokens);
  const repoPath = parent?.repoRoot ?? input.repo;
  if (repoPath === undefined) throw new CitadelError('USAGE_ERROR', 'name the target repository');
  const repo = await repositoryInfo(repoPath);
  const named = parent !== null && input.workflowFile === undefined && input.workflow === undefined
    ? parentWorkflow(parent.contract)
    : await resolveWorkflow({ file: input.workflowFile, inline: input.workflow }, repo.root, ctx.env, parent?.lineage.parent_result_commit);
  const loaded = parent === null ? named : await followUpWorkflow(named, repo.root, ctx.env, parent.lineage);
  if (loaded.workflow.setup?.some((step) => usesNpmConfig(step.command)) === true) safeNpmCacheRoot(ctx, repo.root);
  // Refused here (a tracked file, a symlink, a path outside the repository), before any fork state exists.
  // A follow-up starts from its parent's result: what the includes must not collide with is that tree.
  const baseRevision = parent?.lineage.parent_result_commit ?? repo.head;
  const includes = await resolveWorktreeIncludes(repo.root, baseRevision);
  const protectedPaths = withRepositoryConfig(loaded.protectedPaths);
  const targetDigest = await targetRepositoryDigest(repo.root);
  const newWorkflowConfirmation = await assertWorkflowConfirmed(ctx, { digest: targetDigest, root: repo.root }, loaded.repositoryFile, input.workflowConfirmed);
  const newConfirmation = await assertIncludesConfirmed(ctx, { digest: targetDigest, root: repo.root }, includes?.entries ?? [], input.includeConfirmed);
  // Fail closed before anything exists: no sandbox, no fork (unless the operator chose runtime-only).
  const containment = await contractContainment(
    ctx,
    input.containment ?? 'auto',
    profiles.map((profile) => ({ branchId: branchIdFor(profile.profile_id), profile, adapter: adapterFor(profile.runtime, ctx.adapters) })),
  );
  const signer = await ctx.keys.loadOrCreateSigningKey(ctx.issuerId);
  const forkId = newForkId(ctx.now().getTime());
  await assertDeliveryNamespaceFree(repo.root, profiles.map((profile) => gitBranchName(forkId, branchIdFor(profile.profile_id))));

  const core: ContractV1 = {
    objective_digest: sha256Digest(objective),
    scope: { repository: 'whole', effects: 'branch_worktree' },
    policy: { protected_paths: protectedPaths, landing: 'selection_and_confirmation' },
    budget,
    workflow: loaded.workflow,
    verifier: loaded.verifier,
    base_revision: baseRevision,
    containment,
    fork_id: forkId,
    target_repository_digest: targetDigest,
    ...(includes === null ? {} : { worktree_include: [...includes.entries] }),
    ...(parent === null ? {} : { lineage: parent.lineage }),
  };
  const contract: ContractV1 | ContractV2 =
    schemaVersion === 1
      ? core
      : { ...core, executor_set_digest: executorSetDigest(profiles), signer_public_key_digest: signer.publicKeyDigest, issuer_id: signer.issuerId };

  const at = ctx.now().toISOString();
  const record: ForkRecord = {
    schema_version: schemaVersion,
    fork_id: forkId,
    demo: input.demo === true,
    revision: 0,
    state: 'pending',
    created_at: at,
    base_revision: baseRevision,
    contract_digest: digestOf(contract),
    executor_set_digest: schemaVersion === 2 ? executorSetDigest(profiles) : null,
    history: [{ state: 'pending', at }],
    branches: profiles.map((profile) => {
      const branchId = branchIdFor(profile.profile_id);
      return {
        branch_id: branchId,
        profile_id: profile.profile_id,
        runtime: profile.runtime,
        executor_profile_digest: schemaVersion === 2 ? profileDigest(profile) : null,
        git_branch: gitBranchName(forkId, branchId),
        attempt: 1,
        state: 'pending',
        failure_code: null,
        blocked_reason: null,
        history: [{ state: 'pending', at }],
      };
    }),
  };
  const request: ForkRequest = { repo: repo.root, profiles };
  const signerRecord: SignerRecord = {
    issuer_id: signer.issuerId,
    public_key_hex: Buffer.from(signer.publicKeyRaw).toString('hex'),
    public_key_digest: signer.publicKeyDigest,
    key_store: signer.store.kind,
  };

  await ctx.store.createFork(forkId, async (files) => {
    const journal = await files.journal();
    await journal.intent('fork.create', forkId);
    await writePrivateFile(files.path('objective'), objective);
    if (parent !== null) await writePrivateFile(files.path('parentObjective'), parent.objective);
    await writePrivateJson(files.path('request'), request);
    await writePrivateJson(files.path('signer'), signerRecord);
    await writePrivateJson(files.path('contract'), contract);
    if (includes !== null) await storeWorktreeIncludes(files.path('worktreeInclude'), includes);
    // Kept as the fork that takes the files is written: a start refused before it records nothing.
    if (newConfirmation !== null) await keepIncludeConfirmation(ctx, newConfirmation);
    if (newWorkflowConfirmation !== null) await keepWorkflowConfirmation(ctx, newWorkflowConfirmation);
    await writePrivateJson(files.path('record'), ForkRecordSchema.parse(record));
    await journal.result('fork.create', forkId, 'done');
  });
  ctx.events({ type: 'fork_state', fork_id: forkId, state: 'pending', revision: 0 });
  return { record, repoDirty: repo.dirty, worktreeInclude: includeListOf(includes?.entries ?? []), workflowFoundInRepository: loaded.foundInRepository };
}

/** A follow-up with no workflow named runs its parent's, as the parent's contract froze it (confirmed when the parent started). */
export function parentWorkflow(contract: Contract): LoadedWorkflow {
  return { workflow: contract.workflow, verifier: contract.verifier, protectedPaths: contract.policy.protected_paths, foundInRepository: null, repositoryFile: null };
}

export function validObjective(objective: string): string {
  const trimmed = objective.trim();
  if (trimmed === '' || trimmed.includes('\0') || Buffer.byteLength(trimmed) > MAX_OBJECTIVE_BYTES) {
    throw new CitadelError('OBJECTIVE_INVALID', `the objective must be non-empty text of at most ${MAX_OBJECTIVE_BYTES} bytes`);
  }
  return trimmed;
}

/** Every profile needs a registered adapter whose own schema accepts it (runtimes are plug-ins). */
function resolveProfiles(input: ExecutorInput, ctx: OrchestratorContext): { profiles: RuntimeProfile[]; schemaVersion: 1 | 2 } {
  const result = input.kind === 'runtimes' ? synthesizeLegacyProfiles(input.list) : { ok: true as const, value: [...input.profiles] };
  if (!result.ok) throw result.error;
  for (const profile of result.value) {
    const adapter = adapterFor(profile.runtime, ctx.adapters);
    profileFor(adapter.id, adapter.profileSchema, profile);
  }
  return { profiles: canonicalProfileOrder(result.value), schemaVersion: input.kind === 'runtimes' ? 1 : 2 };
}
