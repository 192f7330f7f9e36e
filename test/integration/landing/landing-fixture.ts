import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openOrchestratorContext } from '../../../main/host/open-context';
import type { LandingInput, ReceiptVerdict } from '../../../main/landing/landing-input';
import type { OrchestratorContext } from '../../../main/host/context';
import { newForkId } from '../../../main/orchestrator/new-fork-id';
import { commitTransition } from '../../../main/store/record-transitions';
import { writeJsonDurably } from '../../../main/store/atomic-file';
import { sha256Digest } from '../../../shared/digest';
import type { ForkRecord } from '../../../shared/fork/fork-record';
import { gitBranchName } from '../../../shared/fork/ids';
import type { SelectionRecord } from '../../../shared/fork/landing';
import { commitFiles, git } from '../git/git-fixture';

/**
 * A selected fork on disk, built without the engine: a target repository on `main`, one
 * `citadel/<fork>/<branch>` branch with a commit per fork branch, a fork record in the real store,
 * and a selection of `branch-claude` recorded the way `fork select` does (one transition to selected).
 */
export interface FakeFork {
  readonly ctx: OrchestratorContext;
  readonly repo: string;
  readonly forkId: string;
  readonly selection: SelectionRecord;
  readonly gitBranch: string;
  readonly baseRevision: string;
  readonly selectedHead: string;
  input(verdict?: ReceiptVerdict): LandingInput;
  record(): Promise<ForkRecord>;
  journalLines(): Record<string, unknown>[];
  forkFile(name: string): string;
}

const BRANCH_IDS = ['branch-claude', 'branch-codex'] as const;

/** `repo` must be a fresh repository with one commit on `main` (git-fixture's makeRepo). */
export async function fakeFork(base: string, repo: string): Promise<FakeFork> {
  const ctx = await openOrchestratorContext({ env: { CITADEL_HOME: path.join(base, 'citadel-root'), CITADEL_KEYSTORE: 'file' } });
  const forkId = newForkId();
  const baseRevision = git(repo, 'rev-parse', 'HEAD');
  const heads = new Map<string, string>();
  for (const branchId of BRANCH_IDS) {
    git(repo, 'checkout', '--quiet', '-b', gitBranchName(forkId, branchId));
    heads.set(branchId, commitFiles(repo, `${branchId} work`, { [`${branchId}.txt`]: `${branchId}\n` }));
    git(repo, 'checkout', '--quiet', 'main');
  }

  const at = ctx.now().toISOString();
  const record: ForkRecord = {
    schema_version: 1,
    fork_id: forkId,
    demo: false,
    revision: 0,
    state: 'ready',
    created_at: at,
    base_revision: baseRevision,
    contract_digest: sha256Digest('contract'),
    executor_set_digest: null,
    history: [{ state: 'ready', at }],
    branches: BRANCH_IDS.map((branchId) => ({
      branch_id: branchId,
      profile_id: branchId.slice('branch-'.length),
      runtime: branchId.slice('branch-'.length),
      executor_profile_digest: null,
      git_branch: gitBranchName(forkId, branchId),
      attempt: 1,
      state: 'passed',
      failure_code: null,
      blocked_reason: null,
      history: [{ state: 'passed', at }],
    })),
  };
  await ctx.store.createFork(forkId, async (files) => {
    const journal = await files.journal();
    await journal.intent('fork.create', forkId);
    await writeJsonDurably(files.path('record'), record);
    await journal.result('fork.create', forkId, 'done');
  });
  const selection: SelectionRecord = {
    fork_id: forkId,
    fork_revision: record.revision,
    branch_id: 'branch-claude',
    actor: 'operator',
    reason_digest: sha256Digest('the verified fix'),
    idempotency_key: 'select-1',
    selected_at: at,
  };
  await commitTransition(ctx, record, {}, 'selected');

  return {
    ctx,
    repo,
    forkId,
    selection,
    gitBranch: gitBranchName(forkId, 'branch-claude'),
    baseRevision,
    selectedHead: heads.get('branch-claude')!,
    input: (verdict = { ok: true, reason: null }) => ({ ctx, forkId, repo, selection, isReceiptVerified: async () => verdict }),
    record: () => ctx.store.readRecord(forkId),
    journalLines: () =>
      readFileSync(ctx.store.file(forkId, 'journal'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    forkFile: (name) => path.join(ctx.store.forkDir(forkId), name),
  };
}

/** Everything about the target an operator could notice: HEAD, checked-out branch, status, every ref. */
export function targetState(repo: string): Record<string, string> {
  return {
    head: git(repo, 'rev-parse', 'HEAD'),
    symbolic: git(repo, 'rev-parse', '--symbolic-full-name', 'HEAD'),
    status: git(repo, 'status', '--porcelain=v1', '--untracked-files=all', '--ignore-submodules=none'),
    refs: git(repo, 'for-each-ref', '--format=%(refname) %(objectname)'),
  };
}
