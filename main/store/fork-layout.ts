import path from 'node:path';
import type { ForkRoot } from './fork-root';

/** Names inside `<root>/forks/<fork_id>/` (private fork state, decisions D2). */
export const FORK_FILES = {
  record: 'fork.json',
  contract: 'contract.json',
  request: 'request.json',
  objective: 'objective.txt',
  /** Issue 32: a follow-up's copy of its parent's objective (the agent's context), bound by the contract's lineage digest. */
  parentObjective: 'parent-objective.txt',
  signer: 'signer.json',
  journal: 'journal.jsonl',
  /** The fork lock: a directory, held while a process changes the fork. */
  lock: 'fork.lock',
  /** Who holds the fork lock and since when (fork-lock.ts): written by the holder, removed before it releases the lock. */
  lockHolder: 'fork.lock.holder.json',
  /** The pre-run containment snapshots, one per branch attempt, each of that branch's own repository (git/containment.ts). */
  containmentBefore: 'containment-before.json',
  /** The current selection: a copy of one decision record from `selections/`. */
  selection: 'selection.json',
  /** The selection's signed envelope (issue 12): selection.json sealed by the fork's signing key, as receipts are. */
  selectionSignature: 'selection.sig.json',
  /** Every selection decision, `<key>.json` beside its private `<key>.reason.txt`. */
  selections: 'selections',
  landing: 'landing.json',
  /** The plan the last landing token was issued for. */
  landingPlan: 'landing-plan.json',
  /** The `.worktreeinclude` files frozen at creation (issue 13): a folder of private copies, each named by its content digest. */
  worktreeInclude: 'worktree-include',
} as const;
export type ForkFileName = keyof typeof FORK_FILES;

const MiB = 1024 * 1024;

/**
 * The most bytes Citadel reads of a stored file, per kind (issue 12): a larger file is refused,
 * never read whole. Records, receipts, checkpoints and the objective are kilobytes; containment
 * snapshots hold one line per ref and git metadata file; a journal two lines per effect.
 */
export const STORED_FILE_MAX_BYTES = {
  record: MiB,
  snapshot: 16 * MiB,
  journal: 16 * MiB,
  /**
   * What a runtime's parser reads of its stdout/stderr log (the supervisor caps the log): its end.
   * Claude's one result object and Codex's `turn.completed`/`turn.failed` are the last lines
   * printed, each far below this.
   */
  logTail: 16 * MiB,
} as const;

/** The size limit of the stored file at `file`, by its name (FORK_FILES, ATTEMPT_FILES, selections). */
export function storedFileMaxBytes(file: string): number {
  const name = path.basename(file);
  if (name === FORK_FILES.journal || name === ATTEMPT_FILES.stopJournal) return STORED_FILE_MAX_BYTES.journal;
  if (name === FORK_FILES.containmentBefore || name === ATTEMPT_FILES.containment || name === ATTEMPT_FILES.setupKept) return STORED_FILE_MAX_BYTES.snapshot;
  return STORED_FILE_MAX_BYTES.record;
}

/** Names inside one attempt's folder, `<root>/forks/<fork_id>/branches/<branch_id>/attempt-<n>/`. */
const ATTEMPT_FILES = {
  instruction: 'instruction.md',
  /** The supervisor's run record; its launch spec sits beside it as `run.launch.json` (launch-supervised.ts). */
  status: 'run.json',
  /** What was launched (argv and instruction digests, environment names), for the receipt. */
  launchFacts: 'launch.json',
  /** STOP's own journal (runtime.stop): STOP never takes the fork lock, so never the fork journal. */
  stopJournal: 'stop-journal.jsonl',
  /** STOP's lock: a directory, like the fork lock. */
  stopLock: 'stop.lock',
  stdout: 'stdout.log',
  stderr: 'stderr.log',
  /** What the drive streamed while the runtime ran: its latest live diff and newest activities (shared/fork/live-trail.ts). */
  liveTrail: 'live-trail.json',
  /** Connections the run's egress bridge refused, one JSON line each (EGRESS_DENIALS_FILE, written by the supervisor). */
  egressDenials: 'egress-denials.jsonl',
  /** What the provider gateway saw, one WireExchange JSON line per request (WIRE_FILE, written by the supervisor; issue 28). */
  wire: 'wire.jsonl',
  containment: 'containment.json',
  /** The workflow's setup as it ran in this attempt's worktree (main/setup/setup-facts.ts), and the ignored paths it left for the verifier. */
  setupFacts: 'setup.json',
  setupKept: 'setup-kept.json',
  /** Each setup step begun so far and its latest status, while setup runs (main/setup/setup-progress.ts). */
  setupProgress: 'setup-progress.json',
  /** The `.worktreeinclude` files the run changed, checked before the verifier's clean (main/workspace/worktree-include.ts). */
  worktreeIncludeCheck: 'worktree-include-check.json',
  /** The `.worktreeinclude` files the attempt's copy wrote, path and digest as measured (the receipt states these). */
  worktreeIncludeCopied: 'worktree-include-copied.json',
  /** The instruction files the run left, read once before the verifier's clean (a retry reads this, not the cleaned tree). */
  instructionFiles: 'instruction-files.json',
  resultCommit: 'result-commit.json',
  receipt: 'execution-receipt.json',
  observation: 'observation.json',
  forkReceipt: 'fork-receipt.json',
} as const;

/** The supervisor writes egress denials beside the status file it is given, under this name. */
export const EGRESS_DENIALS_FILE = ATTEMPT_FILES.egressDenials;

/** The supervisor's gateway writes its wire exchanges beside the status file it is given, under this name. */
export const WIRE_FILE = ATTEMPT_FILES.wire;

/** The staging folder a fork is written in before it is renamed into `forks/<fork_id>`. */
export function forkStagingDir(forksDir: string, forkId: string): string {
  return path.join(forksDir, `.creating-${forkId}`);
}

/** One fork file, in the fork folder given (`ForkStore.forkDir` checks the id, `ForkRoot.forkDir` the path only). */
export function forkFile(forkDir: string, name: ForkFileName): string {
  return path.join(forkDir, FORK_FILES[name]);
}

/** One selection decision's files under the fork's `selections/` folder. */
export function selectionFiles(forkDir: string, key: string): { readonly dir: string; readonly record: string; readonly reason: string } {
  const dir = forkFile(forkDir, 'selections');
  return { dir, record: path.join(dir, `${key}.json`), reason: path.join(dir, `${key}.reason.txt`) };
}

/** Private files of one branch attempt. */
export function attemptFiles(root: ForkRoot, forkId: string, branchId: string, attempt: number) {
  const dir = path.join(root.branchDir(forkId, branchId), `attempt-${attempt}`);
  const files = Object.fromEntries(Object.entries(ATTEMPT_FILES).map(([key, name]) => [key, path.join(dir, name)])) as Record<keyof typeof ATTEMPT_FILES, string>;
  return { dir, ...files, verifierOutput: (step: string) => path.join(dir, `verifier-${step}.out`), setupOutput: (step: string) => path.join(dir, `setup-${step}.out`) };
}
export type AttemptFiles = ReturnType<typeof attemptFiles>;

/**
 * Citadel's own repository of one branch (issue 11): its working tree is the branch worktree, its
 * git dir sits beside the fork's base object store under `<root>/repositories/<fork_id>/`, never
 * inside the worktree, so the executor can be given the worktree read-write and its git metadata
 * read-only. `readOnlyGitRoots` is every path git needs to read for status/diff/log/show in the
 * worktree: the branch's git dir and the base object store its alternates name.
 */
export function branchRepository(root: ForkRoot, forkId: string, branchId: string): { worktree: string; gitDir: string; readOnlyGitRoots: readonly string[] } {
  const gitDir = path.join(root.repositoriesDir(forkId), `${branchId}.git`);
  return { worktree: root.worktreeDir(forkId, branchId), gitDir, readOnlyGitRoots: [gitDir, baseObjectStore(root, forkId)] };
}

/** The fork's base repository (bare): the objects reachable from the base revision, fetched once from the operator's repository. */
export function baseRepository(root: ForkRoot, forkId: string): string {
  return path.join(root.repositoriesDir(forkId), 'base.git');
}

function baseObjectStore(root: ForkRoot, forkId: string): string {
  return path.join(baseRepository(root, forkId), 'objects');
}

/** The journal key of one branch attempt's effects (launch, collection, stop, resolution). */
export function attemptKey(branchId: string, attempt: number): string {
  return `${branchId}#${attempt}`;
}
