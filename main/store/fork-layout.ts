import path from 'node:path';
import type { ForkRoot } from './fork-root';

/** Names inside `<root>/forks/<fork_id>/` (private fork state, decisions D2). */
export const FORK_FILES = {
  record: 'fork.json',
  contract: 'contract.json',
  request: 'request.json',
  objective: 'objective.txt',
  signer: 'signer.json',
  journal: 'journal.jsonl',
  /** The fork lock: a directory, held while a process changes the fork. */
  lock: 'fork.lock',
  /** The pre-run containment snapshot (parent and every assigned worktree), plus Citadel's own result commits. */
  containmentBefore: 'containment-before.json',
  /** The current selection: a copy of one decision record from `selections/`. */
  selection: 'selection.json',
  /** Every selection decision, `<key>.json` beside its private `<key>.reason.txt`. */
  selections: 'selections',
  landing: 'landing.json',
  /** The plan the last landing token was issued for. */
  landingPlan: 'landing-plan.json',
} as const;
export type ForkFileName = keyof typeof FORK_FILES;

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
  containment: 'containment.json',
  resultCommit: 'result-commit.json',
  receipt: 'execution-receipt.json',
  observation: 'observation.json',
  forkReceipt: 'fork-receipt.json',
} as const;

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
  return { dir, ...files, verifierOutput: (step: string) => path.join(dir, `verifier-${step}.out`) };
}
export type AttemptFiles = ReturnType<typeof attemptFiles>;

/** The journal key of one branch attempt's effects (launch, collection, stop, resolution). */
export function attemptKey(branchId: string, attempt: number): string {
  return `${branchId}#${attempt}`;
}
