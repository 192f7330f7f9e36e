import { BranchOutputSchema, type BranchOutput, type OutputText } from '../../../shared/fork/branch-output';
import { sha256Digest } from '../../../shared/digest';
import type { BranchEvidence } from '../../../shared/fork/compare';
import { ForkStatusSchema, type ForkStatus } from '../../../shared/fork/fork-record';
import type { ForkSummary } from '../../../shared/fork/fork-summary';
import { forkSummaryOf } from '../../../shared/fork/fork-summary-of';
import { modelProof } from '../../../shared/fork/model-proof';
import { ExecutionReceiptSchema, type ExecutionReceipt } from '../../../shared/fork/receipts';
import { TelemetrySchema, type Telemetry } from '../../../shared/runtime/telemetry';
import type { ExecutorSetDescription } from '../../../shared/executors/executor-set-description';
import { StartPreviewSchema, type StartPreview } from '../../../shared/fork/start-preview';
import { BranchDetailSchema, type BranchDetail } from '../../../shared/ipc/contract';

/** Replies for component tests, each parsed by the real shared schema it claims to satisfy. */

export const FORK_ID = 'fork-01jq7m3x9r2v5k8d4f6h0n1p2s';
export const BASE = 'a'.repeat(40);
export const digest = (label: string): string => sha256Digest(label);

export function forkStatus(overrides: Partial<ForkStatus> = {}): ForkStatus {
  return ForkStatusSchema.parse({
    fork_id: FORK_ID,
    schema_version: 2,
    demo: false,
    state: 'ready',
    revision: 7,
    base_revision: BASE,
    contract_digest: digest('contract'),
    executor_set_digest: digest('set'),
    created_at: '2026-11-29T20:00:00.000Z',
    title: 'Fix the sum function',
    title_standing: 'verified',
    repo_name: 'app',
    lineage: null,
    children: [],
    branches: [
      { branch_id: 'branch-claude', profile_id: 'claude', runtime: 'claude', state: 'passed', failure_code: null, blocked_reason: null, blocked_code: null, attempt: 1 },
      { branch_id: 'branch-codex', profile_id: 'codex', runtime: 'codex', state: 'passed', failure_code: null, blocked_reason: null, blocked_code: null, attempt: 1 },
    ],
    ...overrides,
  });
}

/** A fork as the fork list carries it (listForks): the summary of its status (and, running, since when). */
export function forkSummary(overrides: Partial<ForkStatus> = {}, runningSince: string | null = null): ForkSummary {
  return forkSummaryOf(forkStatus(overrides), runningSince);
}

export function telemetry(overrides: Partial<Telemetry> = {}): Telemetry {
  return TelemetrySchema.parse({ observed_model: null, observed_model_source: null, input_tokens: null, output_tokens: null, cost_usd: null, ...overrides });
}

export function receipt(branchId: string, overrides: Partial<ExecutionReceipt> = {}): ExecutionReceipt {
  return ExecutionReceiptSchema.parse({
    schema_version: 1,
    kind: 'execution_receipt',
    fork_id: FORK_ID,
    branch_id: branchId,
    attempt: 1,
    runtime: branchId.replace(/^branch-/, ''),
    contract_digest: digest('contract'),
    executor_profile_digest: digest(`profile ${branchId}`),
    argv_digest: digest('argv'),
    instruction_digest: digest('instruction'),
    env_names: [],
    instruction_files: [],
    started_at: '2026-11-29T20:00:01.000Z',
    ended_at: '2026-11-29T20:01:01.000Z',
    duration_ms: 60_000,
    exit: { code: 0, signal: null, timed_out: false, stopped: false },
    base_revision: BASE,
    result_commit: 'b'.repeat(40),
    result_tree: 'c'.repeat(40),
    diff: { files_changed: 2, insertions: 10, deletions: 3 },
    diff_digest: digest('diff'),
    verifier: {
      status: 'passed',
      steps: [{ id: 'git_diff_check', status: 'passed', exit_code: 0, timed_out: false, duration_ms: 12, output_digest: digest('out') }],
    },
    telemetry: telemetry(),
    status: 'passed',
    failure_code: null,
    ...overrides,
  });
}

/** Evidence for the shared comparison engine: verified when a receipt is given, otherwise not. */
export function evidence(branchId: string, verifiedReceipt: ExecutionReceipt | null, requested: string | null = null): BranchEvidence {
  return {
    branch_id: branchId,
    profile_id: branchId.replace(/^branch-/, ''),
    runtime: branchId.replace(/^branch-/, ''),
    receipt_verified: verifiedReceipt !== null,
    receipt: verifiedReceipt,
    reasons: verifiedReceipt === null ? ['receipt_missing'] : [],
    model_proof: modelProof({ model: requested, local_provider: null }, verifiedReceipt?.telemetry ?? null),
    execution_receipt_digest: verifiedReceipt === null ? null : digest(`receipt ${branchId}`),
    fork_receipt_digest: verifiedReceipt === null ? null : digest(`wrapper ${branchId}`),
    // The fixture receipt's one verifier step.
    required_steps: ['git_diff_check'],
  };
}

const NO_CHECK = { problems: [], warnings: [] };

/** Every field of the New Fork preview, none with a problem or a warning. */
export const NO_FIELD_PROBLEMS: StartPreview['fields'] = {
  objective: NO_CHECK,
  repo: NO_CHECK,
  executors: NO_CHECK,
  workflow_file: NO_CHECK,
  budget_seconds: NO_CHECK,
  max_attempts: NO_CHECK,
  budget_tokens: NO_CHECK,
};

/** A New Fork preview that found no problem at any field, for the given executor set. */
export function readyPreview(executors: ExecutorSetDescription, overrides: Partial<StartPreview> = {}): StartPreview {
  return StartPreviewSchema.parse({
    ready: true,
    fields: NO_FIELD_PROBLEMS,
    schema_version: 1,
    executors,
    repository: { root: '/tmp/repo', head: BASE, branch: 'main', dirty: false, worktree_include: null },
    workflow: { source: 'builtin', found_in_repository: null, steps: ['implement'], setup: [], verifier: null, repository_file: null },
    ...overrides,
  });
}

/** A running branch's detail: no receipt collected yet, so nothing verified. */
export function runningBranchDetail(branchId: string, telemetryOverrides: Partial<Telemetry> = {}): BranchDetail {
  return BranchDetailSchema.parse({
    fork_id: FORK_ID,
    branch_id: branchId,
    runtime: 'claude',
    state: 'running',
    failure_code: null,
    receipt_verified: false,
    verification_reasons: ['not_collected'],
    model: modelProof({ model: 'claude-sonnet-4-5', local_provider: null }, null),
    telemetry: telemetry(telemetryOverrides),
    verifier: null,
    diff_summary: null,
    diff_text: null,
    duration_ms: null,
    containment: null,
  });
}

const absentLog = (log: string): OutputText => ({ log, present: false, text: '', truncated: false, stored_bytes: null, hidden_lines: 0 });

/** A branch that has printed nothing yet: no runtime, setup or verifier output is stored. */
export function noOutputYet(branchId: string): BranchOutput {
  return BranchOutputSchema.parse({
    fork_id: FORK_ID,
    branch_id: branchId,
    attempt: 1,
    tail_limit: { lines: 200, bytes: 65536 },
    runtime: { exit: null, dropped_bytes: null, stdout: absentLog('stdout'), stderr: absentLog('stderr') },
    setup: [],
    verifier: [],
    explains: null,
  });
}
