import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { digestOf } from '../../../../shared/digest';
import { ReplaySchema } from '../../../../shared/publish/replay';
import type { VerifiedFork } from '../../../../main/evidence/verify-fork';
import type { OrchestratorContext } from '../../../../main/host/context';
import { buildReplay } from '../../../../main/publish/build-replay';
import { renderPublic } from '../../../../main/publish/export-public';

/**
 * A fork written before containment existed: its contract has no `containment` field and its
 * receipts none either. Only the modules this file imports are used, and they exist with these
 * signatures before containment too, so the same file computes the replay text with the code from
 * before and after (the golden in replay-predates-containment.test.ts came from the code before).
 */
const FORK_ID = 'fork-01jq7m3x9r2v5k8d4f6h0n1p2s';
const BASE = 'a'.repeat(40);
const d = (label: string): string => digestOf(label);
const at = '2026-11-29T20:00:00.000Z';

const contract = {
  objective_digest: d('objective'),
  scope: { repository: 'whole', effects: 'branch_worktree' },
  policy: { protected_paths: [], landing: 'selection_and_confirmation' },
  budget: { wall_seconds: 1800, max_attempts: 1 },
  workflow: { source: 'builtin', steps: [], file_path_in_repo: null, file_digest: null },
  verifier: { builtin: ['git_diff_check'], command: null },
  base_revision: BASE,
};

const receipt = (branchId: string) => ({
  schema_version: 1,
  kind: 'execution_receipt',
  fork_id: FORK_ID,
  branch_id: branchId,
  attempt: 1,
  runtime: branchId.replace(/^branch-/, ''),
  contract_digest: digestOf(contract),
  executor_profile_digest: null,
  argv_digest: d('argv'),
  instruction_digest: d('instruction'),
  env_names: [],
  instruction_files: [],
  started_at: at,
  ended_at: at,
  duration_ms: 1000,
  exit: { code: 0, signal: null, timed_out: false, stopped: false },
  base_revision: BASE,
  result_commit: 'b'.repeat(40),
  result_tree: 'c'.repeat(40),
  diff: { files_changed: 1, insertions: 1, deletions: 1 },
  diff_digest: d('diff'),
  verifier: { status: 'passed', steps: [{ id: 'git_diff_check', status: 'passed', exit_code: 0, timed_out: false, duration_ms: 3, output_digest: d('out') }] },
  telemetry: { observed_model: null, observed_model_source: null, input_tokens: null, output_tokens: null, cost_usd: null },
  status: 'passed',
  failure_code: null,
});

const branchIds = ['branch-claude', 'branch-codex'];

const verified = {
  record: {
    schema_version: 1,
    fork_id: FORK_ID,
    demo: false,
    revision: 9,
    state: 'ready',
    created_at: at,
    base_revision: BASE,
    contract_digest: digestOf(contract),
    executor_set_digest: null,
    history: [{ state: 'pending', at }, { state: 'ready', at }],
    branches: branchIds.map((id) => ({
      branch_id: id,
      profile_id: id.replace(/^branch-/, ''),
      runtime: id.replace(/^branch-/, ''),
      executor_profile_digest: null,
      git_branch: `citadel/${FORK_ID}/${id}`,
      attempt: 1,
      state: 'passed',
      failure_code: null,
      blocked_reason: null,
      history: [{ state: 'pending', at }, { state: 'passed', at }],
    })),
  },
  contract,
  forkReasons: [],
  request: null,
  branches: branchIds.map((id) => ({
    branch_id: id,
    profile_id: id.replace(/^branch-/, ''),
    runtime: id.replace(/^branch-/, ''),
    receipt_verified: true,
    receipt: receipt(id),
    reasons: [],
    model_proof: { requested_model: 'default', requested_provider: null, observed_model: null, status: 'unknown' },
    execution_receipt_digest: d(`receipt ${id}`),
    fork_receipt_digest: null,
    required_steps: ['protected_paths', 'git_diff_check'],
  })),
} as unknown as VerifiedFork;

/** The replay text of the predating fork (or of a variant of it), exactly as `citadel fork replay` renders it. */
export async function predatingForkReplayText(variant: (fork: VerifiedFork) => VerifiedFork = (fork) => fork): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'citadel-predating-'));
  try {
    // No selection or landing was recorded: both files are absent.
    const ctx = { store: { file: (_forkId: string, name: string) => path.join(dir, `${name}.json`) } } as unknown as OrchestratorContext;
    return (await renderPublic(await buildReplay(ctx, FORK_ID, variant(verified)), ReplaySchema)).text;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
