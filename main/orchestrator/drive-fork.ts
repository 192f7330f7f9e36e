import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { sha256Digest } from '../../shared/digest';
import { CitadelError, type ErrorCode } from '../../shared/errors';
import { branchIdFor } from '../../shared/executors/executor-set-description';
import type { Contract } from '../../shared/fork/contract';
import type { BlockedReason, BranchRecord, ForkRecord } from '../../shared/fork/fork-record';
import type { RuntimeActivity } from '../../shared/fork/events';
import type { FailureCode } from '../../shared/runtime/telemetry';
import { deliverResult, ensureBaseRepository, ensureBranchRepository, type BranchRepository } from '../git/branch-repository';
import { containmentSnapshot, type ContainmentSnapshot } from '../git/containment';
import { startStandbySupervisor, type StandbySupervisor } from '../runtimes/process-control/launch-supervised';
import { adapterFor } from '../runtimes/registry';
import { readStatus } from '../runtimes/process-control/read-status';
import { isRuntimeAlive, isSupervisorAlive } from '../runtimes/process-control/run-liveness';
import { stopRun } from '../runtimes/process-control/stop-run';
import { waitForExit } from '../runtimes/process-control/wait-for-exit';
import { writePrivateJson } from '../store/atomic-file';
import { withForkLock } from '../store/fork-lock';
import { attemptFiles, attemptKey, baseRepository, branchRepository, forkFile } from '../store/fork-layout';
import type { Journal } from '../store/journal';
import { readStoredJson, UNTRUSTED } from '../store/read-stored-json';
import type { RunEnd } from './branch-failure';
import { collectBranch } from './collect-branch';
import { startLiveMonitor, type LiveMonitor } from './live-monitor';
import { settledByOperator, unverifiableContractChanges, verifiedContract } from './contract-standing';
import { resultBranchHead } from './delivery-namespace';
import type { OrchestratorContext } from '../host/context';
import { ExpectedContainmentSchema, type ExpectedContainment } from './expected-containment';
import { ForkRequestSchema, SignerRecordSchema, type ForkRequest } from '../../shared/fork/fork-request';
import { branchPortBlock, launchBranch, type BranchTask, type LaunchOutcome } from './launch-branch';
import { setupBranch } from './setup-branch';
import { commitTransition, type BranchChange } from '../store/record-transitions';
import { stopBranchRun, stopEndedRun, stopRequested, stopStatus } from './stop-branch-run';
import { copyWorktreeIncludes, excludeWorktreeIncludes } from '../workspace/worktree-include';

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
      const record = await ctx.store.readRecord(forkId);
      const contract = await verifiedContract(ctx, record);
      // Without a contract that verifies nothing can be launched or collected, and no evidence of the fork can verify.
      if (contract === null) return blockForUnverifiableContract(ctx, record);
      const fork = await loadFork(ctx, record, contract);
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
  task: BranchTask;
}

async function loadFork(ctx: OrchestratorContext, record: ForkRecord, contract: Contract): Promise<LoadedFork> {
  const request = await ctx.store.readJson(record.fork_id, 'request', ForkRequestSchema);
  const objective = await ctx.store.readText(record.fork_id, 'objective');
  return { record, contract, request, task: { objective, parentObjective: await parentObjectiveOf(ctx, record.fork_id, contract) } };
}

/** A follow-up's copy of its parent's objective, only as the contract's lineage binds it: a changed copy is refused, never shown to an agent. */
async function parentObjectiveOf(ctx: OrchestratorContext, forkId: string, contract: Contract): Promise<string | null> {
  if (contract.lineage === undefined) return null;
  const text = await ctx.store.readText(forkId, 'parentObjective');
  if (sha256Digest(text) !== contract.lineage.parent_objective_digest) {
    throw new CitadelError('FORK_RECORD_INVALID', `the parent objective kept by fork ${forkId} is not the one its contract binds`, { details: { fork_id: forkId } });
  }
  return text;
}

/** The drive of a fork whose contract no longer verifies: any live run is stopped, and its branches blocked. */
async function blockForUnverifiableContract(ctx: OrchestratorContext, record: ForkRecord): Promise<ForkRecord> {
  if (settledByOperator(record)) return record;
  for (const branch of record.branches.filter((b) => b.state === 'running')) {
    await stopIfLive(attemptFiles(ctx.root, record.fork_id, branch.branch_id, branch.attempt).status);
  }
  const changes = unverifiableContractChanges(record.branches, { unsettled: true });
  return Object.keys(changes).length === 0 ? record : commitTransition(ctx, record, changes);
}

/** Stops a run whose supervisor or runtime is still alive: unaccounted work must not go on. */
async function stopIfLive(statusFile: string): Promise<void> {
  const status = await readStatus(statusFile).catch(() => null);
  if (status && status.phase === 'running' && (isSupervisorAlive(status) || isRuntimeAlive(status))) await stopRun(statusFile, status, STOP_GRACE_MS);
}

/** A typed refusal that settles a branch as blocked; a lost lock is transient (the effect stays in doubt for `resume`), anything untyped a defect. */
const MACHINE_LAUNCH_FAILURES: ReadonlySet<ErrorCode> = new Set(['SANDBOX_UNAVAILABLE', 'SUPERVISOR_START_FAILED']);

function isBlockingRefusal(error: unknown): error is CitadelError {
  return error instanceof CitadelError && error.code !== 'FORK_LOCKED';
}

/** A branch the operator stopped before its runtime was launched: nothing of the agent ran, and it ends as any stopped branch does. */
const STOPPED_BEFORE_LAUNCH: BranchChange = { state: 'failed', failure_code: 'STOPPED_BY_OPERATOR', blocked_reason: null };

class ForkDriver {
  private record: ForkRecord;
  /** Set by `prepare`, or read once by the first collection of a drive that launches nothing. */
  private expected: Promise<ExpectedContainment> | null = null;
  /**
   * Deliveries run one at a time: each writes refs in the one operator repository. Collections
   * themselves run side by side (see `collectAndRecord`).
   */
  private delivering: Promise<unknown> = Promise.resolve();
  private writing: Promise<unknown> = Promise.resolve();
  private signerOnce: Promise<{ issuerId: string; privateKey: KeyObject }> | null = null;
  /** Branches this drive launched: only their runtime's log is streamed from its start (watchLive). */
  private readonly launchedHere = new Set<string>();

  constructor(
    private readonly ctx: OrchestratorContext,
    private readonly journal: Journal,
    private readonly fork: LoadedFork,
  ) {
    this.record = fork.record;
  }

  async run(mode: DriveMode): Promise<ForkRecord> {
    // A STOP that came before a branch's launch is recorded first, in every mode: it is never launched.
    await this.settleStoppedBeforeLaunch();
    // `exited-only` (STOP's follow-up) records what has ended and never starts anything.
    const pending = mode === 'exited-only' ? [] : this.record.branches.filter((b) => b.state === 'pending');
    if (pending.length > 0) {
      // Each launch's supervisor starts now, while the repositories are checked out, and waits in
      // standby: its start-up (most of a launch) is paid by all at once, outside the journal.
      const standbys = this.standbySupervisors(pending);
      try {
        const prepared = await this.prepare(pending);
        // The launches themselves stay one at a time, in branch order, each from its intent to its
        // result, so which launch a crash leaves in doubt stays deterministic: a standby reads and
        // starts nothing before its hand-over, which comes after its own launch's intent (and after
        // every earlier branch's result), and one never handed over ends when this process does.
        for (const branch of prepared) await this.launch(this.current(branch.branch_id), standbys.get(branch.branch_id));
      } finally {
        for (const standby of standbys.values()) standby.release();
      }
    }
    if (mode !== 'none') {
      const running = this.record.branches.filter((b) => b.state === 'running');
      // Each branch's check reads only its own repository, so collections need no particular order.
      await Promise.all(running.map((branch) => this.finish(branch, mode)));
    }
    // A contract overwritten during the run (after every collection) still blocks the fork.
    await this.transition({});
    return this.record;
  }

  /**
   * The base store, each pending branch's repository and the pre-run snapshots. A typed refusal
   * (a conflicting path, a repository that cannot be read) blocks the branches it stops as
   * `start_refused`, with its code: nothing of theirs ran, and `resolve` or `clean` ends them.
   */
  private async prepare(pending: readonly BranchRecord[]): Promise<BranchRecord[]> {
    if (!(await this.refusingStart(pending, () => this.ensureBaseRepository()))) return [];
    // Each branch repository is its own git dir and work tree, so they are checked out side by side;
    // every one settles before anything is thrown, so none writes after the drive has given up.
    const made = await Promise.allSettled(pending.map((branch) => this.refusingStart([branch], () => this.ensureBranchWorktree(branch))));
    const failed = made.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const prepared = pending.filter((_, i) => made[i]?.status === 'fulfilled' && made[i].value);
    const captured = await this.refusingStart(prepared, async () => {
      this.expected = Promise.resolve(await this.expectedSnapshots(prepared));
    });
    if (!captured) return [];
    // Setup (issue 13) after each worktree and its snapshot exist, before any launch; the branches'
    // setups run side by side (each in its own worktree), and one that fails blocks only its branch.
    const setUp = await Promise.allSettled(prepared.map((branch) => this.refusingStart([branch], () => this.setup(branch))));
    const crashed = setUp.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (crashed !== undefined) throw crashed.reason;
    return prepared.filter((_, i) => setUp[i]?.status === 'fulfilled' && setUp[i].value);
  }

  /**
   * The workflow's setup in the branch's worktree; a failed one refuses the start with SETUP_FAILED
   * (not the agent's doing: nothing of it ran). A STOP of the branch ends the step under way, and
   * the launch that would follow records the branch as stopped instead.
   */
  private async setup(branch: BranchRecord): Promise<void> {
    if (this.fork.contract.workflow.setup === undefined || (await this.stoppedBeforeLaunch(branch))) return;
    const ports = await branchPortBlock(this.ctx, { fork_id: this.record.fork_id, branch_id: branch.branch_id, attempt: branch.attempt });
    const stop = this.watchForStop(branch);
    let outcome;
    try {
      outcome = await setupBranch(this.ctx, this.journal, {
        forkId: this.record.fork_id,
        branch,
        contract: this.fork.contract,
        repository: this.repositoryOf(branch),
        targetRepository: this.fork.request.repo,
        port: ports.first,
        signal: stop.signal,
      });
    } finally {
      stop.end();
    }
    if (!outcome.ok && stop.signal.aborted) return;
    if (!outcome.ok) {
      const { step_id, exit_code, timed_out, spawn_error } = outcome.failure;
      const how = timed_out ? 'timed out' : spawn_error !== null ? `could not start (${spawn_error})` : `exited ${exit_code ?? 'by a signal'}`;
      throw new CitadelError('SETUP_FAILED', `setup step ${step_id} of ${branch.branch_id} ${how}; fix the cause, then citadel fork resolve --retry`, {
        details: { branch_id: branch.branch_id, step_id, exit_code, timed_out },
      });
    }
  }

  /** Aborts once a STOP of the branch is on record (STOP never takes the fork lock, so it is read from its own journal). */
  private watchForStop(branch: BranchRecord): { readonly signal: AbortSignal; end(): void } {
    const controller = new AbortController();
    let reading = false;
    const timer = setInterval(() => {
      if (reading) return;
      reading = true;
      // An unreadable stop journal is read again at the launch, where it stops the drive.
      void stopRequested(this.ctx, this.record.fork_id, branch)
        .then((requested) => requested && controller.abort(), () => undefined)
        .finally(() => (reading = false));
    }, POLL_MS);
    return { signal: controller.signal, end: () => clearInterval(timer) };
  }

  /** Whether the operator stopped this attempt before its launch began. */
  private async stoppedBeforeLaunch(branch: BranchRecord): Promise<boolean> {
    if (this.journal.status('runtime.launch', attemptKey(branch.branch_id, branch.attempt)) !== 'not-started') return false;
    return stopRequested(this.ctx, this.record.fork_id, branch);
  }

  private async settleStoppedBeforeLaunch(): Promise<void> {
    const pending = this.record.branches.filter((b) => b.state === 'pending');
    const stopped = await Promise.all(pending.map((branch) => this.stoppedBeforeLaunch(branch)));
    const changes = Object.fromEntries(pending.filter((_, i) => stopped[i]).map((b) => [b.branch_id, STOPPED_BEFORE_LAUNCH]));
    if (Object.keys(changes).length > 0) await this.transition(changes);
  }

  /**
   * A launched branch is running. STOP of a pending branch reads the record after its request
   * (stop-fork.ts) and this reads the request after the record: whichever comes second sees the
   * other, so a STOP that raced the launch still ends the run.
   */
  private async markRunning(branch: BranchRecord): Promise<void> {
    await this.transition({ [branch.branch_id]: { state: 'running' } });
    if (await stopRequested(this.ctx, this.record.fork_id, branch)) await stopBranchRun(this.ctx, this.record.fork_id, branch);
  }

  /** Runs one start step; on a typed refusal blocks `branches` as `start_refused` and answers false. */
  private async refusingStart(branches: readonly BranchRecord[], step: () => Promise<void>): Promise<boolean> {
    if (branches.length === 0) return true;
    try {
      await step();
      return true;
    } catch (error) {
      if (!isBlockingRefusal(error)) throw error;
      await this.transition(Object.fromEntries(branches.map((b) => [b.branch_id, this.blocked('start_refused', error.code)])));
      return false;
    }
  }

  private blocked(reason: BlockedReason, code: ErrorCode): BranchChange {
    // Nothing ran when a start is refused, so its outcome is known; every other block leaves it unknown.
    return { state: 'blocked', blocked_reason: reason, blocked_code: code, failure_code: reason === 'start_refused' ? null : 'RUNTIME_OUTCOME_UNKNOWN' };
  }

  private current(branchId: string): BranchRecord {
    const branch = this.record.branches.find((b) => b.branch_id === branchId);
    if (!branch) throw new CitadelError('BRANCH_NOT_FOUND', `no branch ${branchId}`);
    return branch;
  }

  private worktreeOf(branch: BranchRecord): string {
    return this.repositoryOf(branch).workTree;
  }

  /** Citadel's own repository of the branch (issue 11), named from the fork layout, never discovered. */
  private repositoryOf(branch: BranchRecord): BranchRepository {
    const { worktree, gitDir } = branchRepository(this.ctx.root, this.record.fork_id, branch.branch_id);
    return { gitDir, workTree: worktree };
  }

  /** The fork's base object store: fetched once from the operator's repository, before any branch repository. */
  private async ensureBaseRepository(): Promise<void> {
    const forkId = this.record.fork_id;
    if (this.journal.status('repository.base', forkId) === 'done') return;
    await this.journal.intent('repository.base', forkId);
    await this.ctx.root.ensureDir(this.ctx.root.repositoriesDir(forkId));
    await ensureBaseRepository(this.fork.request.repo, baseRepository(this.ctx.root, forkId), this.record.base_revision);
    await this.journal.result('repository.base', forkId, 'done');
  }

  private async ensureBranchWorktree(branch: BranchRecord): Promise<void> {
    const key = attemptKey(branch.branch_id, branch.attempt);
    if (this.journal.status('worktree.create', key) === 'done') return;
    await this.journal.intent('worktree.create', key);
    const repository = this.repositoryOf(branch);
    await this.ctx.root.ensureDir(path.dirname(repository.workTree));
    await this.ctx.root.assertNoSymlinks(repository.workTree);
    await this.ctx.root.assertNoSymlinks(repository.gitDir);
    await ensureBranchRepository(baseRepository(this.ctx.root, this.record.fork_id), repository, branch.git_branch);
    // The operator's chosen ignored files (issue 13), before setup and the runtime; a retry's new attempt gets them afresh.
    const included = this.fork.contract.worktree_include ?? [];
    await excludeWorktreeIncludes(repository.gitDir, included);
    const copied = await copyWorktreeIncludes(forkFile(this.ctx.root.forkDir(this.record.fork_id), 'worktreeInclude'), repository.workTree, included);
    // What the copy wrote, as it measured it: the receipt states this, not the contract's list (a contract without includes has nothing to state).
    if (this.fork.contract.worktree_include !== undefined) {
      const files = attemptFiles(this.ctx.root, this.record.fork_id, branch.branch_id, branch.attempt);
      await this.ctx.root.ensureDir(files.dir);
      await writePrivateJson(files.worktreeIncludeCopied, { copied });
    }
    await this.journal.result('worktree.create', key, 'done');
    this.ctx.events({ type: 'runtime', fork_id: this.record.fork_id, branch_id: branch.branch_id, phase: 'worktree_ready' });
  }

  /**
   * The pre-run snapshots, each of one branch attempt's own repository, captured after its
   * repository exists and before any launch; an attempt already on record keeps its snapshot.
   */
  private async expectedSnapshots(pending: readonly BranchRecord[] = []): Promise<ExpectedContainment> {
    const file = this.containmentBeforeFile();
    const stored = await readStoredJson(file, ExpectedContainmentSchema, UNTRUSTED);
    // One that cannot be read is captured (again); a damaged one is refused as it is, never recaptured.
    if (stored.status === 'not_json' || stored.status === 'off_schema') throw stored.error;
    const expected: Record<string, ContainmentSnapshot> = stored.status === 'valid' ? { ...stored.value } : {};
    const missing = pending.filter((b) => expected[attemptKey(b.branch_id, b.attempt)] === undefined);
    if (missing.length === 0 && stored.status === 'valid') return expected;
    for (const branch of missing) expected[attemptKey(branch.branch_id, branch.attempt)] = await containmentSnapshot(branch.branch_id, this.repositoryOf(branch));
    await writePrivateJson(file, expected);
    return expected;
  }

  private containmentBeforeFile(): string {
    return forkFile(this.ctx.root.forkDir(this.record.fork_id), 'containmentBefore');
  }

  /** A standby supervisor for every branch whose launch has not begun (none is journaled for it). */
  private standbySupervisors(pending: readonly BranchRecord[]): Map<string, StandbySupervisor> {
    const cwd = this.ctx.root.forkDir(this.record.fork_id);
    const standbys = new Map<string, StandbySupervisor>();
    for (const branch of pending) {
      if (this.journal.status('runtime.launch', attemptKey(branch.branch_id, branch.attempt)) !== 'not-started') continue;
      const files = attemptFiles(this.ctx.root, this.record.fork_id, branch.branch_id, branch.attempt);
      standbys.set(branch.branch_id, startStandbySupervisor(files.status, cwd, this.ctx.supervisorScript, this.ctx.nodeExecPath));
    }
    return standbys;
  }

  private async launch(branch: BranchRecord, standby?: StandbySupervisor): Promise<void> {
    const key = attemptKey(branch.branch_id, branch.attempt);
    const files = attemptFiles(this.ctx.root, this.record.fork_id, branch.branch_id, branch.attempt);
    const status = this.journal.status('runtime.launch', key);
    if (status === 'in-doubt') return this.blockInDoubtLaunch(branch, files.status);
    if (status === 'failed') {
      const failure = this.journal.resultOf('runtime.launch', key)?.data?.failure_code as FailureCode;
      return this.collectAndRecord(branch, { kind: 'not_started', failure });
    }
    if (status === 'done') return this.markRunning(branch);
    if (await this.stoppedBeforeLaunch(branch)) return this.transition({ [branch.branch_id]: STOPPED_BEFORE_LAUNCH });

    const profile = this.fork.request.profiles.find((p) => branchIdFor(p.profile_id) === branch.branch_id);
    let outcome: LaunchOutcome;
    try {
      if (!profile) throw new CitadelError('FORK_RECORD_INVALID', `no profile recorded for ${branch.branch_id}`);
      outcome = await launchBranch(this.ctx, this.journal, this.record.fork_id, branch, profile, this.fork.contract, this.fork.task, this.worktreeOf(branch), standby);
    } catch (error) {
      // This machine cannot launch at all (a sandbox gone since creation, no supervisor to start):
      // the drive fails with that code, which the operator sees, instead of blocking each branch.
      // A sandbox is probed before the launch intent, so that branch stays pending for `resume`.
      if (!isBlockingRefusal(error) || MACHINE_LAUNCH_FAILURES.has(error.code)) throw error;
      // Refused after its intent (the spawn may have begun): in doubt, like a crash there.
      if (this.journal.status('runtime.launch', key) === 'in-doubt') return this.blockInDoubtLaunch(branch, files.status);
      // Refused before it (an unwritable attempt directory, a profile missing from the request): nothing ran.
      return this.transition({ [branch.branch_id]: this.blocked('start_refused', error.code) });
    }
    if (outcome.kind === 'not_started') return this.collectAndRecord(branch, { kind: 'not_started', failure: outcome.failure });
    if (outcome.kind === 'in_doubt') return this.blockInDoubtLaunch(branch, files.status);
    this.launchedHere.add(branch.branch_id);
    await this.markRunning(branch);
  }

  /**
   * An intent with no result: the runtime may or may not have started. Anything that did start is
   * stopped (unaccounted work must not go on), and the branch waits for an operator.
   */
  private async blockInDoubtLaunch(branch: BranchRecord, statusFile: string): Promise<void> {
    await stopIfLive(statusFile);
    await this.transition({ [branch.branch_id]: { state: 'blocked', blocked_reason: 'launch_in_doubt', failure_code: 'RUNTIME_OUTCOME_UNKNOWN' } });
  }

  private async finish(branch: BranchRecord, mode: DriveMode): Promise<void> {
    const key = attemptKey(branch.branch_id, branch.attempt);
    const collected = this.journal.resultOf('receipt.collect', key);
    if (collected) {
      const data = collected.data as { status: 'passed' | 'failed'; failure_code: FailureCode | null };
      return this.blockingCollectRefusal(branch, async () => {
        await this.deliver(branch);
        await this.transition({ [branch.branch_id]: { state: data.status, failure_code: data.failure_code } });
      });
    }
    const statusFile = attemptFiles(this.ctx.root, this.record.fork_id, branch.branch_id, branch.attempt).status;
    // A STOP cut short (journaled intent, no result) is finished first: the operator's request stands.
    if ((await stopStatus(this.ctx, this.record.fork_id, branch)) === 'in-doubt') await stopBranchRun(this.ctx, this.record.fork_id, branch);
    if (mode === 'exited-only') {
      const status = await readStatus(statusFile).catch(() => null);
      if (status?.phase === 'running' && (isSupervisorAlive(status) || isRuntimeAlive(status))) return;
    }
    const live = this.watchLive(branch);
    const end = await waitForExit(statusFile, { pollMs: POLL_MS }).finally(() => live.stop());
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

  /** The live diff and runtime output of a running branch (issue 14), until its runtime exits. */
  private watchLive(branch: BranchRecord): LiveMonitor {
    const files = attemptFiles(this.ctx.root, this.record.fork_id, branch.branch_id, branch.attempt);
    let activity: ((line: string) => RuntimeActivity | null) | undefined;
    try {
      activity = adapterFor(branch.runtime, this.ctx.adapters).liveActivity;
    } catch {
      // A runtime no adapter knows still gets its live diff; its collection reports the rest.
      activity = undefined;
    }
    return startLiveMonitor({
      forkId: this.record.fork_id,
      branchId: branch.branch_id,
      repository: this.repositoryOf(branch),
      base: this.record.base_revision,
      includes: this.fork.contract.worktree_include ?? [],
      stdoutFile: files.stdout,
      trailFile: files.liveTrail,
      readLogFrom: this.launchedHere.has(branch.branch_id) ? 'start' : 'end',
      activity,
      events: this.ctx.events,
    });
  }

  /**
   * Collections of different branches run concurrently: each rechecks, commits, diffs and verifies
   * in its own repository (git dir and work tree of its own, named from the fork layout), writes
   * only its own attempt's files, and is a repeatable journaled effect, so a crash amid several
   * leaves each to be redone on its own. What they share is serialized where it is written: journal
   * appends (Journal.append), fork.json (`transition`) and the operator's repository (`deliver`).
   */
  private async collectAndRecord(branch: BranchRecord, end: RunEnd): Promise<void> {
    await this.blockingCollectRefusal(branch, () => this.collectOnce(branch, end));
  }

  /**
   * A typed refusal while collecting or delivering (lost key, unreadable evidence, a result branch
   * git cannot create) would otherwise leave the branch running forever; blocked, it waits for
   * `fork resolve` like any outcome Citadel cannot establish.
   */
  private async blockingCollectRefusal(branch: BranchRecord, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (!isBlockingRefusal(error)) throw error;
      await this.transition({ [branch.branch_id]: this.blocked('collect_failed', error.code) });
    }
  }

  private async collectOnce(branch: BranchRecord, end: RunEnd): Promise<void> {
    // One read shared by concurrent collections (a missing file would otherwise be written by each).
    this.expected ??= this.expectedSnapshots().catch((error: unknown) => {
      this.expected = null;
      throw error;
    });
    const current = this.current(branch.branch_id);
    const expected = (await this.expected)[attemptKey(current.branch_id, current.attempt)];
    // A launch that never started may have no repository snapshot (its repository is not rechecked).
    if (expected === undefined && end.kind !== 'not_started') {
      throw new CitadelError('FORK_RECORD_INVALID', `no pre-run containment snapshot for ${attemptKey(current.branch_id, current.attempt)}`);
    }
    const signer = await this.signer();
    const outcome = await collectBranch(this.ctx, this.journal, {
      fork: this.record,
      branch: current,
      contract: this.fork.contract,
      repository: this.repositoryOf(branch),
      worktree: this.worktreeOf(branch),
      expected: expected ?? null,
      signer,
      end,
    });
    await this.deliver(current);
    await this.transition({ [branch.branch_id]: { state: outcome.status, failure_code: outcome.failure_code } });
  }

  /**
   * Citadel's own delivery of a collected branch (issue 11): only now does its commit reach the
   * operator's repository, as `citadel/<fork>/<branch>` at the receipt's result (the base when it
   * has none), so landing finds what was verified. Journaled; repeatable after a crash.
   */
  private deliver(branch: BranchRecord): Promise<void> {
    const work = this.delivering.then(() => this.deliverOnce(branch));
    this.delivering = work.catch(() => undefined);
    return work;
  }

  private async deliverOnce(branch: BranchRecord): Promise<void> {
    const key = attemptKey(branch.branch_id, branch.attempt);
    if (this.journal.status('result.deliver', key) === 'done') return;
    const collected = this.journal.resultOf('receipt.collect', key)?.data?.result_commit;
    const commit = typeof collected === 'string' ? collected : this.record.base_revision;
    await this.journal.intent('result.deliver', key, { commit });
    const current = await resultBranchHead(this.fork.request.repo, branch.git_branch);
    const outcome = await deliverResult(this.fork.request.repo, this.repositoryOf(branch), branch.git_branch, commit, current);
    await this.journal.result('result.deliver', key, 'done', { commit, outcome });
  }

  /** The fork's own signer: the key must still match the public key bound at creation. */
  private signer(): Promise<{ issuerId: string; privateKey: KeyObject }> {
    // Loaded once, also when several collections ask at the same moment.
    this.signerOnce ??= this.loadSigner().catch((error: unknown) => {
      this.signerOnce = null;
      throw error;
    });
    return this.signerOnce;
  }

  private async loadSigner(): Promise<{ issuerId: string; privateKey: KeyObject }> {
    const bound = await this.ctx.store.readJson(this.record.fork_id, 'signer', SignerRecordSchema);
    const key = await this.ctx.keys.loadOrCreateSigningKey(bound.issuer_id);
    if (key.publicKeyDigest !== bound.public_key_digest) {
      throw new CitadelError('SIGNING_KEY_MISMATCH', `the signing key of ${bound.issuer_id} is not the one this fork was created with`);
    }
    return { issuerId: bound.issuer_id, privateKey: key.privateKey };
  }

  /**
   * Snapshot writes are serialized: concurrent branch updates must all land, in order. Each first
   * re-reads the stored contract: once it no longer verifies, every branch whose evidence would
   * count is recorded as blocked for it, so the fork never turns `ready` on evidence that cannot verify.
   */
  private async transition(changes: Record<string, BranchChange>): Promise<void> {
    const write = this.writing.then(async () => {
      let next = changes;
      if (!settledByOperator(this.record) && (await verifiedContract(this.ctx, this.record)) === null) {
        // As the branches will be: those still to run or collect are blocked by the next drive.
        const after = this.record.branches.map((b) => ({ ...b, ...changes[b.branch_id] }));
        next = { ...changes, ...unverifiableContractChanges(after, { unsettled: false }) };
      }
      if (Object.keys(next).length === 0) return;
      this.record = await commitTransition(this.ctx, this.record, next);
    });
    this.writing = write.catch(() => undefined);
    await write;
  }
}
