import { performance } from 'node:perf_hooks';
import { sha256Digest } from '../../shared/digest';
import type { Digest } from '../../shared/digest';
import { PINNED_DIFF_OPTIONS } from './diff-options';
import { requireCommit } from './rev-parse';
import { runGit } from './run-git';

// git diff --check exits 2 when it finds whitespace errors or conflict markers.
const PROBLEMS_FOUND = 2;

export interface DiffCheckResult {
  readonly ok: boolean;
  readonly exit_code: number;
  /** What git printed, for private storage only: it quotes source lines. */
  readonly output: string;
  /** sha256 of `output`'s bytes: what public evidence carries instead. */
  readonly output_digest: Digest;
  readonly duration_ms: number;
}

/** `git diff --check base head`: the built-in verifier step that always runs (decisions D7). */
export async function diffCheck(worktree: string, base: string, head: string): Promise<DiffCheckResult> {
  const [from, to] = await Promise.all([requireCommit(worktree, base), requireCommit(worktree, head)]);
  const started = performance.now();
  const run = await runGit(worktree, ['diff', ...PINNED_DIFF_OPTIONS, '--check', from, to, '--'], {
    okExitCodes: [0, PROBLEMS_FOUND],
  });
  const duration = Math.round(performance.now() - started);
  return {
    ok: run.exitCode === 0,
    exit_code: run.exitCode,
    output: run.stdout.toString('utf8'),
    output_digest: sha256Digest(run.stdout),
    duration_ms: duration,
  };
}
