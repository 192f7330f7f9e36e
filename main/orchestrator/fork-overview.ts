import { existsSync } from 'node:fs';
import { sha256Digest } from '../../shared/digest';
import { isCitadelError } from '../../shared/errors';
import { gitBranchName } from '../../shared/fork/ids';
import { LandingRecordSchema, type LandingRecord, type SelectionRecord } from '../../shared/fork/landing';
import type { ForkOverview } from '../../shared/fork/fork-overview';
import { runGit, stdoutLine } from '../git/run';
import type { OrchestratorContext } from '../host/context';
import { readSelection } from '../landing/decision-standing';
import { mergeCommitHolds } from '../landing/find-merge-commit';
import { selectionFiles, storedFileMaxBytes } from '../store/fork-layout';
import { readBoundedBytes } from '../store/read-bounded-text';
import { DECISION_RECORD, readStoredJson } from '../store/read-stored-json';
import { verifiedContract } from './contract-standing';
import { forkLabels, storedRepoPath } from './fork-labels';

/**
 * The Fork page header: the fork's labels, where it came from, who selected what and how landing
 * ended, and each branch's worktree on this machine. Read-only; no git runs in a worktree.
 */
export async function forkOverview(ctx: Pick<OrchestratorContext, 'store' | 'root'>, forkId: string): Promise<ForkOverview> {
  const record = await ctx.store.readRecord(forkId);
  const [labels, repoPath, selection, landing] = await Promise.all([
    verifiedContract(ctx, record).then((contract) => forkLabels(ctx, forkId, contract)),
    storedRepoPath(ctx, forkId),
    readSelection(ctx.store, forkId),
    readStoredJson(ctx.store.file(forkId, 'landing'), LandingRecordSchema, DECISION_RECORD),
  ]);
  return {
    fork_id: forkId,
    ...labels,
    repo_path: repoPath,
    base_revision: record.base_revision,
    repo_branch: repoPath === null ? null : await checkedOutBranch(repoPath),
    selection: selection === null ? null : await selectionShown(ctx, forkId, selection),
    landing: landing === null ? null : await landingShown(repoPath, landing),
    worktrees: record.branches.map((b) => {
      const worktree = ctx.root.worktreeDir(forkId, b.branch_id);
      return { branch_id: b.branch_id, path: worktree, present: existsSync(worktree) };
    }),
  };
}

async function selectionShown(ctx: Pick<OrchestratorContext, 'store'>, forkId: string, selection: SelectionRecord): Promise<NonNullable<ForkOverview['selection']>> {
  const file = selectionFiles(ctx.store.forkDir(forkId), selection.idempotency_key).reason;
  const read = await readBoundedBytes(file, storedFileMaxBytes(file), 'refuse');
  // Only a private copy that is the reason the record binds is shown as it.
  const reason = read.ok && sha256Digest(read.bytes) === selection.reason_digest ? read.bytes.toString('utf8') : null;
  return {
    branch_id: selection.branch_id,
    actor: selection.actor,
    selected_at: selection.selected_at,
    reason,
    reason_digest: selection.reason_digest,
    against_evidence: selection.against_evidence ?? null,
  };
}

async function landingShown(repoPath: string | null, landing: LandingRecord): Promise<NonNullable<ForkOverview['landing']>> {
  if (landing.status === 'blocked') return { status: 'in_doubt', branch_id: landing.branch_id, target_branch: landing.target_branch, blocked_at: landing.blocked_at };
  const intent = {
    fork_id: landing.fork_id,
    branch_id: landing.branch_id,
    git_branch: gitBranchName(landing.fork_id, landing.branch_id),
    fork_revision: landing.fork_revision,
    selection_digest: landing.selection_digest,
    target_branch: landing.target_branch,
    expected_parents: [landing.target_head_before, landing.selected_branch_head] as [string, string],
  };
  const holds = repoPath !== null && (await quietly(() => mergeCommitHolds(repoPath, intent, landing.merge_commit), false));
  return { status: 'landed', branch_id: landing.branch_id, target_branch: landing.target_branch, merge_commit: landing.merge_commit, landed_at: landing.landed_at, on_target_branch: holds };
}

async function checkedOutBranch(repo: string): Promise<string | null> {
  return quietly(async () => {
    const run = await runGit(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { okExitCodes: [0, 1, 128] });
    return run.exitCode === 0 ? stdoutLine(run) : null;
  }, null);
}

/** A target that is gone or is no repository any more answers `fallback`, never an error: the header still shows the rest. */
async function quietly<T>(read: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isCitadelError(error)) return fallback;
    throw error;
  }
}
