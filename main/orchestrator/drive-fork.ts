import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { CitadelError } from '../../shared/errors';
import { branchIdFor } from '../../shared/executors/executor-set-description';
import { ContractV1Schema, ContractV2Schema, type Contract } from '../../shared/fork/contract';
import type { BranchRecord, ForkRecord } from '../../shared/fork/fork-record';
import type { FailureCode } from '../../shared/runtime/telemetry';
import { ContainmentSnapshotSchema, containmentSnapshot, type ContainmentSnapshot } from '../git/containment';
import { ensureWorktree } from '../git/worktree';
import { readStatus } from '../runtimes/process-control/read-status';
import { isRuntimeAlive, isSupervisorAlive } from '../runtimes/process-control/run-liveness';
import { stopRun } from '../runtimes/process-control/stop-run';
import { waitForExit } from '../runtimes/process-control/wait-for-exit';
import { writePrivateJson } from '../store/atomic-file';
import { withForkLock } from '../store/fork-lock';
import { attemptFiles, attemptKey, forkFile } from '../store/fork-layout';
import type { Journal } from '../store/journal';
import { readStoredJson, UNTRUSTED } from '../store/read-stored-json';
import { collectBranch, type RunEnd } from './collect-branch';
import type { OrchestratorContext } from '../host/context';
import { expectResultCommit, scopeToFork } from './expected-containment';
import { ForkRequestSchema, SignerRecordSchema, type ForkRequest } from '../../shared/fork/fork-request';
import { launchBranch } from './launch-branch';
import { commitTransition, type BranchChange } from '../store/record-transitions';
import { stopBranchRun, stopEndedRun, stopStatus } from './stop-branch-run';

/** `all`: wait for every branch to end; `exited-only`: collect what has ended, leave the rest; `none`: launch and return. */
export type DriveMode = 'all' | 'exited-only' | 'none';

const POLL_MS = 200;
const STOP_GRACE_MS = 5000;

/**
 * Moves a fork forward from whatever its journal and records say (decisions D11): repeatable
 * effects are retried, completed ones skipped, an in-doubt launch blocks its branch. `start` and
 * `resume` both come here, so resume continues exactly the recorded request.
 */
export async function driveFork(ctx: OrchestratorContext, forkId: string, mode: DriveMode, options: { lockWaitMs?: number } = {}): Promise<ForkRecord> {
  const dir = ctx.store.forkDir(forkId);
  await ctx.store.readRecord(forkId);
  return withForkLock(
    dir,
    async () => {
      const fork = await loadFork(ctx, forkId);
      const journal = await ctx.store.openJournal(forkId);
      return new ForkDriver(ctx, journal, fork).run(mode);
    },
    options.lockWaitMs === undefined ? {} : { waitMs: options.lockWaitMs },
  );
}

interface LoadedFork {
  record: ForkRecord;
  contract: Contract;
  request: ForkRequest;
  objective: string;
}

async function loadFork(ctx: OrchestratorContext, forkId: string): Promise<LoadedFork> {
  const record = await ctx.store.readRecord(forkId);
  const contract = await ctx.store.readJson(forkId, 'contract', record.schema_version === 1 ? ContractV1Schema : ContractV2Schema);
  const request = await ctx.store.readJson(forkId, 'request', ForkRequestSchema);
  const objective = await ctx.store.readText(forkId, 'objective');
  return { record, contract, request, objective };
}

class ForkDriver {
  private record: ForkRecord;
  private expected: ContainmentSnapshot | null = null;
  /** Collections of one fork run one at a time: each updates the shared expected snapshot. */
  private collecting: Promise<unknown> = Promise.resolve();
  private writing: Promise<unknown> = Promise.resolve();
  private signerCache: { issuerId: string; privateKey: KeyObject } | null = null;

  constructor(
    private readonly ctx: OrchestratorContext,
    private readonly journal: Journal,
    private readonly fork: LoadedFork,
  ) {
    this.record = fork.record;
  }

  async run(mode: DriveMode): Promise<ForkRecord> {
    // `exited-only` (STOP's follow-up) records what has ended and never starts anything.
    const pending = mode === 'exited-only' ? [] : this.record.branches.filter((b) => b.state === 'pending');
    if (pending.length > 0) {
      for (const branch of pending) await this.ensureBranchWorktree(branch);
      this.expected = await this.expectedSnapshot();
      // One at a time, in branch order: which launch a crash leaves in doubt stays deterministic.
      for (const branch of pending) await this.launch(this.current(branch.branch_id));
    }
    if (mode === 'none') return this.record;
    const running = this.record.branches.filter((b) => b.state === 'running');
    // A collection cut short by a crash may already have committed its branch's result: it is
    // finished first, so no other branch's containment check runs before the expected snapshot
    // holds that commit (it would report Citadel's own commit as the agent's violation).
    const interrupted = running.filter((b) => this.journal.status('receipt.collect', attemptKey(b.branch_id, b.attempt)) === 'in-doubt');
    for (const branch of interrupted) await this.finish(branch, mode);
    await Promise.all(running.filter((b) => !interrupted.includes(b)).map((branch) => this.finish(branch, mode)));
    return this.record;
  }

  private current(branchId: string): BranchRecord {
    const branch = this.record.branches.find((b) => b.branch_id === branchId);
    if (!branch) throw new CitadelError('BRANCH_NOT_FOUND', `no branch ${branchId}`);
    return branch;
  }

  private worktreeOf(branch: BranchRecord): string {
    return this.ctx.root.worktreeDir(this.record.fork_id, branch.branch_id);
  }

  private async ensureBranchWorktree(branch: BranchRecord): Promise<void> {
    const key = attemptKey(branch.branch_id, branch.attempt);
    if (this.journal.status('worktree.create', key) === 'done') return;
    await this.journal.intent('worktree.create', key);
    const dir = this.worktreeOf(branch);
    await this.ctx.root.ensureDir(path.dirname(dir));
    await this.ctx.root.assertNoSymlinks(dir);
    await ensureWorktree(this.fork.request.repo, dir, branch.git_branch, this.record.base_revision);
    await this.journal.result('worktree.create', key, 'done');
    this.ctx.events({ type: 'runtime', fork_id: this.record.fork_id, branch_id: branch.branch_id, phase: 'worktree_ready' });
  }

  /** The pre-run snapshot, captured once after every worktree exists and before any launch. */
  private async expectedSnapshot(): Promise<ContainmentSnapshot> {
    const file = this.containmentBeforeFile();
    const stored = await readStoredJson(file, ContainmentSnapshotSchema, UNTRUSTED);
    // One that cannot be read is captured (again); a damaged one is refused as it is, never recaptured.
    if (stored.status === 'not_json' || stored.status === 'off_schema') throw stored.error;
    if (stored.status === 'valid') return this.withJournaledResults(stored.value);
    const assigned = this.record.branches.map((b) => ({ branchId: b.branch_id, worktreePath: this.worktreeOf(b), branchName: b.git_branch }));
    const snapshot = this.scoped(await containmentSnapshot(this.fork.request.repo, assigned));
    await writePrivateJson(file, snapshot);
    return snapshot;
  }

  /**
   * A crash between a collection's journal result and the rewrite of the snapshot file leaves the
   * file without that branch's result commit; the journal has it (collectBranch records it).
   */
  private withJournaledResults(snapshot: ContainmentSnapshot): ContainmentSnapshot {
    return this.record.branches.reduce((expected, branch) => {
      const commit = this.journal.resultOf('receipt.collect', attemptKey(branch.branch_id, branch.attempt))?.data?.result_commit;
      return typeof commit === 'string' ? expectResultCommit(expected, branch.branch_id, commit) : expected;
    }, snapshot);
  }

  private containmentBeforeFile(): string {
    return forkFile(this.ctx.root.forkDir(this.record.fork_id), 'containmentBefore');
  }

  private scoped(snapshot: ContainmentSnapshot): ContainmentSnapshot {
    return scopeToFork(snapshot, this.record.fork_id, path.dirname(path.dirname(this.worktreeOf(this.record.branches[0]!))));
  }

  private async launch(branch: BranchRecord): Promise<void> {
    const key = attemptKey(branch.branch_id, branch.attempt);
    const files = attemptFiles(this.ctx.root, this.record.fork_id, branch.branch_id, branch.attempt);
    const status = this.journal.status('runtime.launch', key);
    if (status === 'in-doubt') return this.blockInDoubtLaunch(branch, files.status);
    if (status === 'failed') {
      const failure = this.journal.resultOf('runtime.launch', key)?.data?.failure_code as FailureCode;
      return this.collectAndRecord(branch, { kind: 'not_started', failure });
    }
    if (status === 'done') return this.transition({ [branch.branch_id]: { state: 'running' } });

    const profile = this.fork.request.profiles.find((p) => branchIdFor(p.profile_id) === branch.branch_id);
    if (!profile) throw new CitadelError('FORK_RECORD_INVALID', `no profile recorded for ${branch.branch_id}`);
    const outcome = await launchBranch(this.ctx, this.journal, this.record.fork_id, branch, profile, this.fork.contract, this.fork.objective, this.worktreeOf(branch));
    if (outcome.kind === 'not_started') return this.collectAndRecord(branch, { kind: 'not_started', failure: outcome.failure });
    if (outcome.kind === 'in_doubt') return this.blockInDoubtLaunch(branch, files.status);
    await this.transition({ [branch.branch_id]: { state: 'running' } });
  }

  /**
   * An intent with no result: the runtime may or may not have started. Anything that did start is
   * stopped (unaccounted work must not go on), and the branch waits for an operator.
   */
  private async blockInDoubtLaunch(branch: BranchRecord, statusFile: string): Promise<void> {
    const status = await readStatus(statusFile).catch(() => null);
    if (status && status.phase === 'running' && (isSupervisorAlive(status) || isRuntimeAlive(status))) await stopRun(statusFile, status, STOP_GRACE_MS);
    await this.transition({ [branch.branch_id]: { state: 'blocked', blocked_reason: 'launch_in_doubt', failure_code: 'RUNTIME_OUTCOME_UNKNOWN' } });
  }

  private async finish(branch: BranchRecord, mode: DriveMode): Promise<void> {
    const key = attemptKey(branch.branch_id, branch.attempt);
    const collected = this.journal.resultOf('receipt.collect', key);
    if (collected) {
      const data = collected.data as { status: 'passed' | 'failed'; failure_code: FailureCode | null };
      return this.transition({ [branch.branch_id]: { state: data.status, failure_code: data.failure_code } });
    }
    const statusFile = attemptFiles(this.ctx.root, this.record.fork_id, branch.branch_id, branch.attempt).status;
    // A STOP cut short (journaled intent, no result) is finished first: the operator's request stands.
    if ((await stopStatus(this.ctx, this.record.fork_id, branch)) === 'in-doubt') await stopBranchRun(this.ctx, this.record.fork_id, branch);
    if (mode === 'exited-only') {
      const status = await readStatus(statusFile).catch(() => null);
      if (status?.phase === 'running' && (isSupervisorAlive(status) || isRuntimeAlive(status))) return;
    }
    const end = await waitForExit(statusFile, { pollMs: POLL_MS });
    this.ctx.events({ type: 'runtime', fork_id: this.record.fork_id, branch_id: branch.branch_id, phase: end.phase === 'lost' ? 'lost' : 'exited' });
    if (end.phase === 'lost') {
      // Read after the run is over: only a STOP that is known to have ended a live run explains the
      // missing exit record; one that found the run already gone leaves its outcome unknown.
      if (await stopEndedRun(this.ctx, this.record.fork_id, branch)) {
        const running = await readStatus(statusFile);
        return this.collectAndRecord(branch, { kind: 'stopped_unrecorded', started_at: running.started_at });
      }
      // Supervisor and runtime vanished without a record: the outcome is unknown and is never guessed or relaunched.
      return this.transition({ [branch.branch_id]: { state: 'blocked', blocked_reason: 'process_lost', failure_code: 'RUNTIME_OUTCOME_UNKNOWN' } });
    }
    await this.collectAndRecord(branch, { kind: 'exited', status: end });
  }

  private async collectAndRecord(branch: BranchRecord, end: RunEnd): Promise<void> {
    const work = this.collecting.then(() => this.collectOnce(branch, end)).catch(async (error: unknown) => {
      // A typed refusal (lost key, unreadable evidence) would otherwise leave the branch running
      // forever; blocked, it waits for `fork resolve` like any outcome Citadel cannot establish.
      // A lost lock is transient: the collection stays in doubt for `resume`, not for an operator.
      if (!(error instanceof CitadelError) || error.code === 'FORK_LOCKED') throw error;
      await this.transition({ [branch.branch_id]: { state: 'blocked', blocked_reason: 'collect_failed', blocked_code: error.code, failure_code: 'RUNTIME_OUTCOME_UNKNOWN' } });
    });
    this.collecting = work.catch(() => undefined);
    await work;
  }

  private async collectOnce(branch: BranchRecord, end: RunEnd): Promise<void> {
    this.expected ??= await this.expectedSnapshot();
    const signer = await this.signer();
    const outcome = await collectBranch(this.ctx, this.journal, {
      fork: this.record,
      branch: this.current(branch.branch_id),
      contract: this.fork.contract,
      repo: this.fork.request.repo,
      worktree: this.worktreeOf(branch),
      expected: this.expected,
      signer,
      end,
    });
    if (outcome.resultCommit !== null) {
      this.expected = expectResultCommit(this.expected, branch.branch_id, outcome.resultCommit);
      await writePrivateJson(this.containmentBeforeFile(), this.expected);
    }
    await this.transition({ [branch.branch_id]: { state: outcome.status, failure_code: outcome.failure_code } });
  }

  /** The fork's own signer: the key must still match the public key bound at creation. */
  private async signer(): Promise<{ issuerId: string; privateKey: KeyObject }> {
    if (this.signerCache) return this.signerCache;
    const bound = await this.ctx.store.readJson(this.record.fork_id, 'signer', SignerRecordSchema);
    const key = await this.ctx.keys.loadOrCreateSigningKey(bound.issuer_id);
    if (key.publicKeyDigest !== bound.public_key_digest) {
      throw new CitadelError('SIGNING_KEY_MISMATCH', `the signing key of ${bound.issuer_id} is not the one this fork was created with`);
    }
    this.signerCache = { issuerId: bound.issuer_id, privateKey: key.privateKey };
    return this.signerCache;
  }

  /** Snapshot writes are serialized: concurrent branch updates must all land, in order. */
  private async transition(changes: Record<string, BranchChange>): Promise<void> {
    const write = this.writing.then(async () => {
      this.record = await commitTransition(this.ctx, this.record, changes);
    });
    this.writing = write.catch(() => undefined);
    await write;
  }
}
