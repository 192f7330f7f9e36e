import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import { canonicalJson } from '../../shared/canonical-json';
import { digestOf, sha256Digest } from '../../shared/digest';
import { CitadelError } from '../../shared/errors';
import { bindsGateway, type Contract } from '../../shared/fork/contract';
import type { BranchRecord, ForkRecord } from '../../shared/fork/fork-record';
import { branchResultOf, InstructionFileSchema, type ExecutionReceipt, type ForkReceipt, type Observation, type VerifierStep } from '../../shared/fork/receipts';
import { UNKNOWN_TELEMETRY, type FailureCode, type ParsedRuntimeOutput } from '../../shared/runtime/telemetry';
import type { WireFacts } from '../../shared/runtime/wire';
import { wireFactsOf } from '../../shared/runtime/wire-facts';
import { collectInstructionFiles } from '../evidence/instruction-files';
import { signEnvelope } from '../evidence/signing/sign-envelope';
import { readWireExchanges } from '../evidence/wire-exchanges';
import type { BranchRepository } from '../git/branch-repository';
import { commitBranchResult } from '../git/commit';
import { checkContainment, containmentSnapshot, type ContainmentSnapshot, type ContainmentViolation } from '../git/containment';
import { changedPaths, diffCheck, diffSummary } from '../git/diff';
import { scanResultSymlinks } from '../git/result-symlinks';
import { prepareVerificationTree, type VerificationTarget } from '../git/verification-tree';
import { childEnvironment, COMMON_ENV_ALLOWLIST, withCitadelPort } from '../runtimes/env-allowlist';
import { adapterFor } from '../runtimes/registry';
import { outputTruncationOf } from '../runtimes/supervisor/output-truncation';
import type { ExitedStatus } from '../runtimes/supervisor/run-status';
import { writePrivateFile, writePrivateJson } from '../store/atomic-file';
import { crashPoint } from '../store/crash-points';
import { attemptFiles, attemptKey, STORED_FILE_MAX_BYTES, type AttemptFiles } from '../store/fork-layout';
import type { Journal } from '../store/journal';
import { readTail } from '../store/read-bounded-text';
import { CHECKPOINT, DECISION_RECORD, readStoredJson } from '../store/read-stored-json';
import { runVerifierCommand } from '../verifier/run-verifier-command';
import type { OrchestratorContext } from '../host/context';
import { failureOf, type RunEnd } from './branch-failure';
import { containedVerifier, runtimeEnvironmentOf } from './branch-containment';
import { branchPortBlock, readLaunchFacts } from './launch-branch';
import { setupEvidence } from './setup-branch';
import { NO_KEPT_PATHS, type KeptPaths } from '../git/kept-paths';
import { readKeptPaths } from '../setup/setup-facts';
import { releasePortBlocks } from '../workspace/port-blocks';
import { changedWorktreeIncludes, copyWorktreeIncludes, CopiedIncludesSchema, type CopiedInclude } from '../workspace/worktree-include';
import { forkFile } from '../store/fork-layout';

export interface CollectInput {
  readonly fork: ForkRecord;
  readonly branch: BranchRecord;
  readonly contract: Contract;
  /** Citadel's own repository of this branch; every git command here names it explicitly. */
  readonly repository: BranchRepository;
  readonly worktree: string;
  /** The pre-run state of the branch's own repository; null only for a run that never started. */
  readonly expected: ContainmentSnapshot | null;
  readonly signer: { readonly issuerId: string; readonly privateKey: KeyObject };
  readonly end: RunEnd;
}

export interface CollectOutcome {
  readonly status: 'passed' | 'failed';
  readonly failure_code: FailureCode | null;
}

const ContainmentCheckSchema = z.strictObject({ violations: z.array(z.record(z.string(), z.unknown())) });
const ResultCommitSchema = z.strictObject({ commit: z.string(), tree: z.string(), changed: z.boolean() });
const IncludeCheckSchema = z.strictObject({ changed: z.array(z.string()) });
const InstructionFilesCheckSchema = z.strictObject({ files: z.array(InstructionFileSchema) });

/**
 * Turns a finished run into signed evidence: containment recheck, Citadel's own result commit,
 * diff facts, verifier, execution receipt and (schema 2) the fork receipt wrapper. A repeatable
 * effect: each step leaves a checkpoint file, so a retry after a crash redoes nothing twice.
 */
export async function collectBranch(ctx: OrchestratorContext, journal: Journal, input: CollectInput): Promise<CollectOutcome> {
  const { fork, branch, contract, end } = input;
  const key = attemptKey(branch.branch_id, branch.attempt);
  const files = attemptFiles(ctx.root, fork.fork_id, branch.branch_id, branch.attempt);
  await ctx.root.ensureDir(files.dir);
  await journal.intent('receipt.collect', key);

  const launch = await readLaunchFacts(files.launchFacts);
  const ran = end.kind !== 'not_started';
  const violations = ran ? await containmentCheck(files, input) : [];
  crashPoint('receipt.collect:after-containment');
  const includesChanged = ran ? await worktreeIncludeCheck(files, input) : [];
  const parsed = end.kind === 'exited' && violations.length === 0 ? await parseRun(ctx, input, files, end.status) : null;

  const wire = await wireFactsFor(files, input);
  const runtimeFailure = failureOf(end, violations, parsed, wire);
  const result = violations.length === 0 && ran ? await resultCommit(files, input.repository, fork, branch) : null;
  crashPoint('receipt.collect:after-commit');
  const diff = result ? await diffSummary(input.repository, fork.base_revision, result.commit) : null;
  // Read before the verifier runs: code the agent wrote runs inside it and could change them.
  const instructionFiles = await instructionFilesOf(files, input.worktree);
  const verifier = await verify(ctx, input, files, runtimeFailure === null ? result : null, includesChanged);
  crashPoint('receipt.collect:after-verifier');

  const telemetry = parsed?.telemetry ?? UNKNOWN_TELEMETRY;
  const costOverBudget = contract.budget.max_cost_usd !== null && telemetry.cost_usd !== null && telemetry.cost_usd > contract.budget.max_cost_usd;
  const failure: FailureCode | null =
    runtimeFailure ?? (costOverBudget ? 'BUDGET_EXCEEDED' : (verifier.refusal ?? (verifier.status === 'passed' ? null : 'VERIFIER_FAILED')));
  const status = failure === null ? 'passed' : 'failed';
  const exited = end.kind === 'exited' ? end.status : null;
  const setup = contract.workflow.setup === undefined ? null : await setupEvidence(ctx, fork.fork_id, branch);
  const copied = await copiedIncludes(files, contract);
  // Not started: nothing printed, nothing lost. Stopped without a record: unknown, so not stated.
  const outputTruncated = exited !== null ? outputTruncationOf(exited) : end.kind === 'not_started' ? null : undefined;

  const receipt: ExecutionReceipt = {
    schema_version: 1,
    kind: 'execution_receipt',
    fork_id: fork.fork_id,
    branch_id: branch.branch_id,
    attempt: branch.attempt,
    runtime: branch.runtime,
    contract_digest: fork.contract_digest,
    executor_profile_digest: branch.executor_profile_digest,
    argv_digest: launch?.argv_digest ?? digestOf(null),
    instruction_digest: launch?.instruction_digest ?? digestOf(null),
    env_names: launch?.env_names ?? [],
    instruction_files: instructionFiles,
    started_at: exited?.started_at ?? (end.kind === 'stopped_unrecorded' ? end.started_at : null),
    ended_at: exited?.ended_at ?? null,
    duration_ms: exited?.duration_ms ?? null,
    exit: {
      code: exited?.exit_code ?? null,
      signal: exited?.signal ?? null,
      timed_out: exited?.timed_out ?? false,
      stopped: exited?.stopped ?? end.kind === 'stopped_unrecorded',
    },
    base_revision: fork.base_revision,
    result_commit: result?.commit ?? null,
    result_tree: result?.tree ?? null,
    diff: diff ? { files_changed: diff.files_changed, insertions: diff.insertions, deletions: diff.deletions } : null,
    diff_digest: diff?.diff_digest ?? null,
    verifier: { status: verifier.status, steps: verifier.steps },
    telemetry,
    status,
    failure_code: failure,
    // What the run was launched under, as its launch recorded it (verify-fork checks it against the contract).
    ...(launch?.containment === undefined ? {} : { containment: launch.containment }),
    ...(outputTruncated === undefined ? {} : { output_truncated: outputTruncated }),
    ...(copied === null ? {} : { worktree_include: copied }),
    ports: launch?.ports ?? null,
    ...(setup === null ? {} : { setup }),
    ...(wire === null ? {} : { wire }),
  };
  const receiptEnvelope = signEnvelope(receipt, input.signer.privateKey);
  await writePrivateJson(files.receipt, receiptEnvelope);
  if (fork.schema_version === 2 && branch.executor_profile_digest !== null) {
    const observation: Observation = { telemetry, branch_result_digest: digestOf(branchResultOf(receipt)) };
    await writePrivateJson(files.observation, observation);
    const wrapper: ForkReceipt = {
      schema_version: 1,
      kind: 'operation_fork_execution_receipt',
      fork_id: fork.fork_id,
      branch_id: branch.branch_id,
      contract_digest: fork.contract_digest,
      executor_profile_digest: branch.executor_profile_digest,
      execution_receipt_digest: receiptEnvelope.receipt_digest,
      observation_digest: digestOf(observation),
      issued_at: ctx.now().toISOString(),
      issuer_id: input.signer.issuerId,
    };
    await writePrivateJson(files.forkReceipt, signEnvelope(wrapper, input.signer.privateKey));
  }
  crashPoint('receipt.collect:after-receipt');
  // Not `result.changed`: a retry after a crash between `git commit` and its checkpoint finds
  // nothing left to commit, yet the head moved past the base. The delivery reads it from here.
  const resultCommitted = result !== null && result.commit !== fork.base_revision ? result.commit : null;
  await journal.result('receipt.collect', key, 'done', { status, failure_code: failure, result_commit: resultCommitted });
  // Collected: the attempt's runtime and verifier are over, so its ports are free for another branch.
  await releasePortBlocks(ctx.root.dir, { fork_id: fork.fork_id, branch_id: branch.branch_id, attempt: branch.attempt });
  return { status, failure_code: failure };
}

async function containmentCheck(files: AttemptFiles, input: CollectInput): Promise<ContainmentViolation[]> {
  const stored = await readStoredJson(files.containment, ContainmentCheckSchema, CHECKPOINT);
  if (stored) return stored.violations as ContainmentViolation[];
  if (input.expected === null) throw new CitadelError('INTERNAL_ERROR', `no pre-run containment snapshot for ${input.branch.branch_id}`);
  const now = await containmentSnapshot(input.branch.branch_id, input.repository);
  const violations = checkContainment(input.expected, now);
  await writePrivateJson(files.containment, { violations });
  return violations;
}

/**
 * The `.worktreeinclude` files this attempt's copy wrote, as it measured them (verify-fork compares
 * them with the contract); null when the contract names none, or when no copy was recorded.
 */
async function copiedIncludes(files: AttemptFiles, contract: Contract): Promise<CopiedInclude[] | null> {
  if (contract.worktree_include === undefined) return null;
  return (await readStoredJson(files.worktreeIncludeCopied, CopiedIncludesSchema, DECISION_RECORD))?.copied ?? null;
}

/**
 * The `.worktreeinclude` files the run changed (issue 13), read before anything cleans the worktree
 * and kept as a checkpoint: a retry after the verifier's clean and re-copy must not find them intact.
 */
async function worktreeIncludeCheck(files: AttemptFiles, input: CollectInput): Promise<string[]> {
  const entries = input.contract.worktree_include ?? [];
  if (entries.length === 0) return [];
  const stored = await readStoredJson(files.worktreeIncludeCheck, IncludeCheckSchema, CHECKPOINT);
  if (stored) return stored.changed;
  const changed = await changedWorktreeIncludes(input.worktree, entries);
  await writePrivateJson(files.worktreeIncludeCheck, { changed });
  return changed;
}

/**
 * The instruction files the run left in its worktree, kept as a checkpoint: the verifier's clean
 * removes the ignored ones, so a retry after a crash past it must not record the cleaned tree.
 */
async function instructionFilesOf(files: AttemptFiles, worktree: string): Promise<ExecutionReceipt['instruction_files']> {
  const stored = await readStoredJson(files.instructionFiles, InstructionFilesCheckSchema, CHECKPOINT);
  if (stored) return stored.files;
  const found = await collectInstructionFiles(worktree);
  await writePrivateJson(files.instructionFiles, { files: found });
  return found;
}

/**
 * What setup left for the verifier (issue 13): nothing without setup; a branch that ran with setup
 * always has its fingerprints (setup passed before its launch), so a missing file is refused.
 */
async function keptPathsOf(files: AttemptFiles, contract: Contract): Promise<KeptPaths> {
  if (contract.workflow.setup === undefined) return NO_KEPT_PATHS;
  const kept = await readKeptPaths(files.setupKept);
  if (kept === null) throw new CitadelError('FORK_RECORD_INVALID', `the setup record of ${path.basename(files.dir)} is missing or damaged`, { details: { file: path.basename(files.setupKept) } });
  return kept;
}

async function parseRun(ctx: OrchestratorContext, input: CollectInput, files: AttemptFiles, status: ExitedStatus): Promise<ParsedRuntimeOutput> {
  const adapter = adapterFor(input.branch.runtime, ctx.adapters);
  const [stdout, stderr] = await Promise.all([readLogTail(files.stdout), readLogTail(files.stderr)]);
  return adapter.parseOutput({
    stdout,
    stderr,
    exitCode: status.exit_code,
    signal: status.signal,
    worktree: input.worktree,
    env: runtimeEnvironmentOf(input.contract, adapter, files.dir, childEnvironment(ctx.env, adapter).env),
  });
}

/**
 * The wire facts of a branch the contract sends through the gateway (zero when it saw nothing, the
 * run never started included); null without a gateway. Read from the host-written file, never from
 * anything the sandbox can write.
 */
async function wireFactsFor(files: AttemptFiles, input: CollectInput): Promise<WireFacts | null> {
  if (!bindsGateway(input.contract, input.branch.branch_id)) return null;
  return wireFactsOf((await readWireExchanges(files.wire)) ?? []);
}

async function resultCommit(files: AttemptFiles, repository: BranchRepository, fork: ForkRecord, branch: BranchRecord) {
  const stored = await readStoredJson(files.resultCommit, ResultCommitSchema, CHECKPOINT);
  if (stored) return stored;
  const commit = await commitBranchResult(repository, `citadel: result of ${branch.branch_id} (attempt ${branch.attempt}) for ${fork.fork_id}`);
  const record = { commit: commit.commit, tree: commit.tree, changed: commit.changed };
  await writePrivateJson(files.resultCommit, record);
  return record;
}

interface VerifierOutcome {
  readonly status: 'passed' | 'failed' | 'not_run';
  readonly steps: VerifierStep[];
  /** A check that stopped the verifier before its command could judge the result. */
  readonly refusal: 'POLICY_SYMLINK_ESCAPE' | 'POLICY_PROTECTED_PATH' | 'VERIFICATION_TREE_MISMATCH' | null;
}

const notRun = (id: VerifierStep['id']): VerifierStep => ({ id, status: 'not_run', exit_code: null, timed_out: false, duration_ms: null, output_digest: null });

/**
 * Checks that read only git objects come first: links the branch added or changed that point out
 * of the worktree (a verifier following one would read outside it), then protected paths (a diff
 * that touches the verifier's own files never gets to run that verifier), then `git diff --check`
 * (always). The workflow command (when declared) runs last, in a worktree made to hold exactly the
 * result commit: what it judges is what is delivered and landed.
 */
async function verify(
  ctx: OrchestratorContext,
  input: CollectInput,
  files: AttemptFiles,
  result: VerificationTarget | null,
  includesChanged: readonly string[],
): Promise<VerifierOutcome> {
  const emit = (step: VerifierStep): VerifierStep => {
    ctx.events({ type: 'verifier_step', fork_id: input.fork.fork_id, branch_id: input.branch.branch_id, step: step.id, status: step.status });
    return step;
  };
  const commandStep = input.contract.verifier.command === null ? [] : [notRun('workflow_verifier')];
  if (result === null) return { status: 'not_run', steps: [notRun('result_symlinks'), notRun('protected_paths'), notRun('git_diff_check'), ...commandStep], refusal: null };

  const base = input.fork.base_revision;
  const scanStarted = performance.now();
  const links = await scanResultSymlinks(input.repository, base, result.commit);
  const linkReport = canonicalJson(links);
  await writePrivateFile(files.verifierOutput('result_symlinks'), linkReport);
  const escaped = links.escaping.length > 0;
  const steps: VerifierStep[] = [
    emit({ id: 'result_symlinks', status: escaped ? 'failed' : 'passed', exit_code: null, timed_out: false, duration_ms: Math.round(performance.now() - scanStarted), output_digest: sha256Digest(linkReport) }),
  ];
  if (escaped) return { status: 'failed', steps: [...steps, notRun('protected_paths'), notRun('git_diff_check'), ...commandStep], refusal: 'POLICY_SYMLINK_ESCAPE' };

  const touched = await changedPaths(input.repository, base, result.commit);
  const isProtected = picomatch([...input.contract.policy.protected_paths], { dot: true });
  // Copied `.worktreeinclude` files are protected too (issue 13): edited in place, or committed at their path.
  const included = new Set((input.contract.worktree_include ?? []).map((entry) => entry.path));
  const protectedTouched =
    (input.contract.policy.protected_paths.length > 0 && touched.some((p) => isProtected(p))) || includesChanged.length > 0 || touched.some((p) => included.has(p));
  const protectedReport = included.size === 0 ? touched : { changed_paths: touched, changed_worktree_include: includesChanged };
  // Kept as the other steps' output is, so the Fork view can show which paths were touched.
  await writePrivateFile(files.verifierOutput('protected_paths'), canonicalJson(protectedReport));
  steps.push(emit({ id: 'protected_paths', status: protectedTouched ? 'failed' : 'passed', exit_code: null, timed_out: false, duration_ms: null, output_digest: digestOf(protectedReport) }));
  if (protectedTouched) return { status: 'failed', steps: [...steps, notRun('git_diff_check'), ...commandStep], refusal: 'POLICY_PROTECTED_PATH' };

  const check = await diffCheck(input.repository, base, result.commit);
  await writePrivateFile(files.verifierOutput('git_diff_check'), check.output);
  steps.push(emit({ id: 'git_diff_check', status: check.ok ? 'passed' : 'failed', exit_code: check.exit_code, timed_out: false, duration_ms: Math.round(check.duration_ms), output_digest: check.output_digest }));

  const command = input.contract.verifier.command;
  if (command !== null) {
    const tree = await prepareVerificationTree(input.repository, result, await keptPathsOf(files, input.contract));
    crashPoint('receipt.collect:after-verification-tree');
    if (!tree.ok) {
      await writePrivateFile(files.verifierOutput('verification_tree'), canonicalJson(tree.problems));
      return { status: 'failed', steps: [...steps, notRun('workflow_verifier')], refusal: 'VERIFICATION_TREE_MISMATCH' };
    }
    // The clean removed the copied `.worktreeinclude` files (unchanged, or protected_paths has failed): the verifier gets them back.
    await copyWorktreeIncludes(forkFile(ctx.root.forkDir(input.fork.fork_id), 'worktreeInclude'), input.worktree, input.contract.worktree_include ?? []);
    // The runtime's port block (issue 13): a test server the verifier starts never meets another branch's.
    const ports = await branchPortBlock(ctx, { fork_id: input.fork.fork_id, branch_id: input.branch.branch_id, attempt: input.branch.attempt });
    const env = withCitadelPort(childEnvironment(ctx.env, { envAllowlist: COMMON_ENV_ALLOWLIST }), ports.first).env;
    const contained = await containedVerifier(ctx, input.contract, {
      forkId: input.fork.fork_id,
      branchId: input.branch.branch_id,
      attemptDir: files.dir,
      worktree: input.worktree,
      verifier: command,
      childEnv: env,
    });
    ctx.events({ type: 'verifier_step', fork_id: input.fork.fork_id, branch_id: input.branch.branch_id, step: 'workflow_verifier', status: 'running' });
    const run = await runVerifierCommand(command, input.worktree, env, contained);
    await writePrivateFile(files.verifierOutput('workflow_verifier'), run.output);
    const passed = run.exit_code === 0 && !run.timed_out;
    steps.push(emit({ id: 'workflow_verifier', status: passed ? 'passed' : 'failed', exit_code: run.exit_code, timed_out: run.timed_out, duration_ms: run.duration_ms, output_digest: run.output_digest }));
  }
  return { status: steps.every((s) => s.status === 'passed') ? 'passed' : 'failed', steps, refusal: null };
}

/**
 * The end of a runtime log, where its outcome is (STORED_FILE_MAX_BYTES.logTail), never the whole
 * file: when its start was cut, the cut first line is dropped (kept when it is the only line). A
 * log that is missing or not a regular file reads as empty.
 */
async function readLogTail(file: string): Promise<string> {
  const tail = await readTail(file, STORED_FILE_MAX_BYTES.logTail);
  if (!tail.ok) return '';
  return tail.bytes.subarray(tail.cut ? tail.bytes.indexOf(0x0a) + 1 : 0).toString('utf8');
}
