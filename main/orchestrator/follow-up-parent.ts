import { sha256Digest } from '../../shared/digest';
import { CitadelError } from '../../shared/errors';
import type { Contract } from '../../shared/fork/contract';
import { SignerRecordSchema, type ForkRequest } from '../../shared/fork/fork-request';
import type { Digest } from '../../shared/digest';
import { readStoredJson, UNTRUSTED } from '../store/read-stored-json';
import type { Lineage, ParentRef } from '../../shared/fork/lineage';
import type { ExecutionReceipt } from '../../shared/fork/receipts';
import { ExecutorProfileV2Schema } from '../../shared/executors/profile-schema';
import { objectiveTitle } from '../../shared/fork/fork-status';
import type { FollowUpDraft } from '../../shared/ipc/contract';
import { verifyFork } from '../evidence/verify-fork';
import picomatch from 'picomatch';
import { changedPaths } from '../git/diff';
import { scanResultSymlinks } from '../git/result-symlinks';
import { bindSetupAt, type LoadedWorkflow } from './load-workflow';
import { withRepositoryConfig } from '../../shared/fork/workflow-proposal';
import { revParse } from '../git/refs';
import { repositoryInfo } from '../git/repository';
import type { OrchestratorContext } from '../host/context';
import { targetRepositoryDigest } from '../landing/target-identity';
import { storedFileMaxBytes } from '../store/fork-layout';
import { readBoundedBytes } from '../store/read-bounded-text';
import type { ExecutorInput } from './executor-input';

/** What a follow-up takes from the branch it continues, every part re-verified from the parent's files. */
export interface FollowUpParent {
  readonly lineage: Lineage;
  /** The parent's objective (the agent's context), the one its verified contract binds. */
  readonly objective: string;
  readonly contract: Contract;
  /** The parent branch's verified receipt: what it ended as, signed (fork.json's copy is not). */
  readonly receipt: ExecutionReceipt;
  /** The parent's target repository, as `repositoryInfo` reads it. */
  readonly repoRoot: string;
  /** The parent's executor set, as its signed set (or schema 1's legacy runtimes) has it. */
  readonly executors: ExecutorInput;
}

/**
 * The parent of `fork start --from` (issue 32), refused before any state of the follow-up exists:
 * its contract must verify (PARENT_CONTRACT_UNVERIFIED), the branch must have a verified receipt
 * (PARENT_RECEIPT_UNVERIFIED; a failed branch's counts), its policy checks must have passed on its
 * result (PARENT_RESULT_UNCHECKED), the target must be the repository the
 * parent's contract binds (PARENT_TARGET_MISMATCH), and the branch's result commit must still be in
 * it (PARENT_RESULT_MISSING). `repo` is the operator's repository argument, when one was given.
 */
export async function followUpParent(ctx: OrchestratorContext, ref: ParentRef, repo: string | undefined): Promise<FollowUpParent> {
  const verified = await verifyFork(ctx, ref.fork_id);
  const contract = verified.contract;
  if (contract === null || verified.forkReasons.includes('contract_digest_mismatch')) {
    throw new CitadelError('PARENT_CONTRACT_UNVERIFIED', `the contract of fork ${ref.fork_id} does not match its digest: nothing can continue from it`, { details: { ...ref } });
  }
  const evidence = verified.branches.find((b) => b.branch_id === ref.branch_id);
  if (evidence === undefined) throw new CitadelError('BRANCH_NOT_FOUND', `fork ${ref.fork_id} has no branch ${ref.branch_id}`, { details: { ...ref } });
  if (!evidence.receipt_verified || evidence.receipt === null || evidence.execution_receipt_digest === null) {
    const reasons = evidence.reasons.join(', ') || 'no receipt';
    throw new CitadelError('PARENT_RECEIPT_UNVERIFIED', `branch ${ref.branch_id} of fork ${ref.fork_id} has no verified receipt here (${reasons}): a follow-up starts only from verified work`, {
      details: { ...ref, reasons: [...evidence.reasons] },
    });
  }
  const objective = await verifiedObjective(ctx, ref, contract);
  // The very request verifyFork read: a branch verified, so its profiles are the signed set's (or schema 1's legacy runtimes).
  const request = verified.request;
  if (request === null) throw new CitadelError('PARENT_TARGET_MISMATCH', `the request of fork ${ref.fork_id} cannot be read`, { details: { ...ref } });
  const repoRoot = await parentTarget(ref, contract, request, repo);
  const resultCommit = evidence.receipt.result_commit ?? evidence.receipt.base_revision;
  if ((await revParse(repoRoot, resultCommit)) !== resultCommit) {
    throw new CitadelError('PARENT_RESULT_MISSING', `the result commit ${resultCommit} of ${ref.fork_id}/${ref.branch_id} is no longer in the target repository`, {
      details: { ...ref, result_commit: resultCommit },
    });
  }
  await assertPolicyChecked(ref, evidence.receipt, contract, repoRoot);
  return {
    lineage: {
      parent_fork_id: ref.fork_id,
      parent_branch_id: ref.branch_id,
      parent_contract_digest: verified.record.contract_digest,
      parent_execution_receipt_digest: evidence.execution_receipt_digest,
      parent_result_commit: resultCommit,
      parent_objective_digest: contract.objective_digest,
      parent_signer_public_key_digest: await signerDigest(ctx, ref, contract),
      root_base_revision: contract.lineage?.root_base_revision ?? contract.base_revision,
    },
    objective,
    contract,
    receipt: evidence.receipt,
    repoRoot,
    executors: verified.record.schema_version === 2 ? { kind: 'executors', profiles: request.profiles } : { kind: 'runtimes', list: request.profiles.map((p) => p.runtime).join(',') },
  };
}

/**
 * Mission Control's "Continue from this branch": the start's own checks, then what New Fork is
 * pre-filled with (the parent's repository and executor set).
 */
export async function followUpDraft(ctx: OrchestratorContext, ref: ParentRef): Promise<FollowUpDraft> {
  const parent = await followUpParent(ctx, ref, undefined);
  const executors = parent.executors.kind === 'runtimes' ? parent.executors : { kind: 'executors' as const, profiles: ExecutorProfileV2Schema.array().parse(parent.executors.profiles) };
  return {
    from: ref,
    repo: parent.repoRoot,
    executors,
    parent_title: objectiveTitle(parent.objective),
    parent_branch_state: parent.receipt.status,
    parent_failure_code: parent.receipt.failure_code,
    parent_result_commit: parent.lineage.parent_result_commit,
  };
}

/**
 * A follow-up's workflow, checked against what its worktrees get, its parent's result: its setup
 * bound again there (bindSetupAt: an agent wrote the settings files now), and every path it
 * protects unchanged since the chain's first base.
 */
export async function followUpWorkflow(loaded: LoadedWorkflow, root: string, env: Readonly<Record<string, string | undefined>>, lineage: Lineage): Promise<LoadedWorkflow> {
  const setup = loaded.workflow.setup;
  const bound = setup === undefined ? loaded : { ...loaded, workflow: { ...loaded.workflow, setup: await bindSetupAt(setup, root, env, lineage.parent_result_commit) } };
  await assertProtectedKept(root, lineage, withRepositoryConfig(loaded.protectedPaths));
  return bound;
}

/**
 * Every path a follow-up protects must be the operator's: unchanged from the chain's first base to
 * the parent's result. A parent's own checks do not cover it: they held only the parent's diff to
 * the parent's protected paths, and a follow-up may protect more (`--workflow`), or an earlier link less.
 */
async function assertProtectedKept(repoRoot: string, lineage: Lineage, protectedPaths: readonly string[]): Promise<void> {
  if (protectedPaths.length === 0) return;
  const isProtected = picomatch([...protectedPaths], { dot: true });
  const changed = (await changedPaths(repoRoot, lineage.root_base_revision, lineage.parent_result_commit)).filter((p) => isProtected(p));
  if (changed.length > 0) {
    throw new CitadelError('PARENT_PROTECTED_PATH_CHANGED', `agents changed what this follow-up protects since the first fork of its chain (${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ', …' : ''}): it would be judged against their files`, {
      details: { parent_fork_id: lineage.parent_fork_id, parent_branch_id: lineage.parent_branch_id, paths: changed.slice(0, 20) },
    });
  }
}

/** The steps whose pass says the result kept the parent's shared policy (collect-branch.ts runs them before any verifier command). */
const POLICY_STEPS = ['result_symlinks', 'protected_paths'] as const;

/**
 * A follow-up's base is the parent agent's result, so it must keep the parent's policy: otherwise
 * tests, workflow or protected files the agent changed, or a link out of the tree, would be what the
 * next fork starts from. Its signed receipt says so when collect's checks passed; a failed check
 * refuses. When the runtime failed before they ran (a budget, an error: its work may still be worth
 * continuing), they are run here, as collect runs them, on the very commits the receipt names.
 */
async function assertPolicyChecked(ref: ParentRef, receipt: ExecutionReceipt, contract: Contract, repoRoot: string): Promise<void> {
  if (receipt.result_commit === null) return;
  const statuses = POLICY_STEPS.map((id) => receipt.verifier.steps.find((step) => step.id === id)?.status);
  if (statuses.every((status) => status === 'passed')) return;
  const refuse = (why: string): CitadelError =>
    new CitadelError('PARENT_RESULT_UNCHECKED', `the result of ${ref.fork_id}/${ref.branch_id} does not keep its fork's policy (${why}): a follow-up cannot start from it`, {
      details: { ...ref, failure_code: receipt.failure_code },
    });
  const failed = POLICY_STEPS.filter((_, i) => statuses[i] === 'failed');
  if (failed.length > 0) throw refuse(`its ${failed.join(' and ')} check failed`);
  // Not run, or predating a step: judged here on the same commits rather than taken on trust.
  const links = await scanResultSymlinks(repoRoot, receipt.base_revision, receipt.result_commit);
  if (links.escaping.length > 0) throw refuse(`a symlink leads out of the tree: ${links.escaping[0]?.path ?? ''}`);
  const isProtected = picomatch([...contract.policy.protected_paths], { dot: true });
  const included = new Set((contract.worktree_include ?? []).map((entry) => entry.path));
  const touched = (await changedPaths(repoRoot, receipt.base_revision, receipt.result_commit)).filter((p) => (contract.policy.protected_paths.length > 0 && isProtected(p)) || included.has(p));
  if (touched.length > 0) throw refuse(`it changed protected paths: ${touched.slice(0, 5).join(', ')}`);
}

/**
 * The parent's signing key: the one its schema 2 contract binds, or (schema 1 binds none) its signer
 * record's, which verifyFork has just held to every verified receipt (else none would verify).
 */
async function signerDigest(ctx: OrchestratorContext, ref: ParentRef, contract: Contract): Promise<Digest> {
  if ('signer_public_key_digest' in contract) return contract.signer_public_key_digest;
  const signer = await readStoredJson(ctx.store.file(ref.fork_id, 'signer'), SignerRecordSchema, UNTRUSTED);
  if (signer.status !== 'valid') throw new CitadelError('PARENT_RECEIPT_UNVERIFIED', `the signer of fork ${ref.fork_id} cannot be read`, { details: { ...ref } });
  return signer.value.public_key_digest;
}

async function verifiedObjective(ctx: OrchestratorContext, ref: ParentRef, contract: Contract): Promise<string> {
  const file = ctx.store.file(ref.fork_id, 'objective');
  const read = await readBoundedBytes(file, storedFileMaxBytes(file), 'refuse');
  if (!read.ok || sha256Digest(read.bytes) !== contract.objective_digest) {
    throw new CitadelError('PARENT_CONTRACT_UNVERIFIED', `the stored objective of fork ${ref.fork_id} is not the one its contract binds`, { details: { ...ref } });
  }
  return read.bytes.toString('utf8');
}

/** The parent's recorded target, held to the repository identity its contract binds; a `repo` given must be that repository. */
async function parentTarget(ref: ParentRef, contract: Contract, request: ForkRequest, repo: string | undefined): Promise<string> {
  const bound = contract.target_repository_digest;
  // A contract from before the binding names no repository: its request's path is unsigned, and is not followed.
  if (bound === undefined) {
    throw new CitadelError('PARENT_TARGET_MISMATCH', `fork ${ref.fork_id} predates the binding of its target repository: a follow-up cannot be sure where it lands`, { details: { ...ref } });
  }
  const root = (await repositoryInfo(request.repo)).root;
  if ((await targetRepositoryDigest(root)) !== bound) {
    throw new CitadelError('PARENT_TARGET_MISMATCH', `the recorded target of fork ${ref.fork_id} is not the repository its contract binds`, { details: { ...ref } });
  }
  if (repo !== undefined && (await repositoryInfo(repo)).root !== root) {
    throw new CitadelError('PARENT_TARGET_MISMATCH', `a follow-up of ${ref.fork_id} lands in its repository, ${root}; --repo names another`, { details: { ...ref, repo: root } });
  }
  return root;
}
