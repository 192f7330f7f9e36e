import path from 'node:path';
import type { OrchestratorContext } from './context';

/** Private files of one branch attempt, under `<root>/forks/<fork>/branches/<branch>/attempt-<n>/`. */
export function branchFiles(ctx: OrchestratorContext, forkId: string, branchId: string, attempt: number) {
  const dir = path.join(ctx.root.branchDir(forkId, branchId), `attempt-${attempt}`);
  return {
    dir,
    instruction: path.join(dir, 'instruction.md'),
    status: path.join(dir, 'run.json'),
    /** STOP's own journal (runtime.stop): STOP never takes the fork lock, so never the fork journal. */
    stopJournal: path.join(dir, 'stop-journal.jsonl'),
    stdout: path.join(dir, 'stdout.log'),
    stderr: path.join(dir, 'stderr.log'),
    containment: path.join(dir, 'containment.json'),
    resultCommit: path.join(dir, 'result-commit.json'),
    verifierOutput: (step: string) => path.join(dir, `verifier-${step}.out`),
    receipt: path.join(dir, 'execution-receipt.json'),
    observation: path.join(dir, 'observation.json'),
    forkReceipt: path.join(dir, 'fork-receipt.json'),
  };
}
export type BranchFiles = ReturnType<typeof branchFiles>;

/** The pre-run containment snapshot of a fork (parent and every assigned worktree). */
export function containmentBeforeFile(ctx: OrchestratorContext, forkId: string): string {
  return path.join(ctx.root.forkDir(forkId), 'containment-before.json');
}
