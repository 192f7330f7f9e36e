import { sha256Digest } from '../../shared/digest';
import type { SetupFailure, SetupStep } from '../../shared/fork/workflow';
import type { SetupStepEvidence } from '../../shared/fork/receipts';
import { writePrivateFile } from '../store/atomic-file';
import { runVerifierCommand, type ContainedVerifierLaunch } from '../verifier/run-verifier-command';
import { SETUP_TAIL_BYTES } from './setup-facts';

/**
 * How one step is started: contained (the backend's launch) or not, with exactly `env`. `close`
 * ends what `prepare` opened (an egress bridge) and answers lines to add to the step's output
 * (connections the proxy refused), so the operator sees them with the step's own messages.
 */
export interface PreparedSetupStep {
  readonly contained: ContainedVerifierLaunch | null;
  readonly env: Readonly<Record<string, string>>;
  /** `failed`: the step did not pass, so what explains it (npm's logs) is worth keeping. */
  close(failed: boolean): Promise<readonly string[]>;
}

export interface SetupStepsInput {
  readonly steps: readonly SetupStep[];
  /** The branch worktree: every step runs in it. */
  readonly cwd: string;
  /** Where a step's whole output (bounded by the runner) is kept privately. */
  readonly outputFile: (stepId: string) => string;
  readonly prepare: (step: SetupStep) => Promise<PreparedSetupStep>;
  /** Told when each step starts and how it ended, for live progress; awaited before the step goes on. */
  readonly onStep?: (stepId: string, status: 'running' | SetupStepEvidence['status']) => void | Promise<void>;
  /** Once aborted, the step under way is ended (as its timeout would end it) and the steps after it are not run. */
  readonly signal?: AbortSignal;
}

export interface SetupStepsOutcome {
  readonly steps: SetupStepEvidence[];
  readonly failure: SetupFailure | null;
}

const notRun = (id: string): SetupStepEvidence => ({ id, status: 'not_run', exit_code: null, timed_out: false, duration_ms: null, output_digest: null });

/**
 * Runs the workflow's setup steps in order, shell-free, each with its own timeout (its process
 * group killed when it passes); the first that fails, or a STOP, stops the rest, which are recorded as not run.
 */
export async function runSetupSteps(input: SetupStepsInput): Promise<SetupStepsOutcome> {
  const steps: SetupStepEvidence[] = [];
  for (const [index, step] of input.steps.entries()) {
    // A step that exits 0 on the STOP's SIGTERM must not let the next one start.
    if (input.signal?.aborted === true) return { steps: [...steps, ...input.steps.slice(index).map((s) => notRun(s.id))], failure: stoppedBefore(step.id) };
    await input.onStep?.(step.id, 'running');
    const prepared = await input.prepare(step);
    let run;
    let notes: readonly string[] = [];
    try {
      run = await runVerifierCommand(step, input.cwd, prepared.env, prepared.contained, input.signal);
    } finally {
      notes = await prepared.close(run === undefined || run.exit_code !== 0 || run.timed_out);
    }
    const output = notes.length === 0 ? run.output : Buffer.concat([run.output, Buffer.from(notes.map((note) => `citadel: ${note}\n`).join(''))]);
    await writePrivateFile(input.outputFile(step.id), output);
    const passed = run.exit_code === 0 && !run.timed_out;
    steps.push({ id: step.id, status: passed ? 'passed' : 'failed', exit_code: run.exit_code, timed_out: run.timed_out, duration_ms: run.duration_ms, output_digest: sha256Digest(output) });
    await input.onStep?.(step.id, passed ? 'passed' : 'failed');
    if (!passed) {
      const failure: SetupFailure = { step_id: step.id, exit_code: run.exit_code, timed_out: run.timed_out, spawn_error: run.spawn_error, tail: tailOf(output) };
      return { steps: [...steps, ...input.steps.slice(index + 1).map((s) => notRun(s.id))], failure };
    }
  }
  return { steps, failure: null };
}

/** Setup did not finish: stopped before `stepId` started, which has no output but this note. */
function stoppedBefore(stepId: string): SetupFailure {
  return { step_id: stepId, exit_code: null, timed_out: false, spawn_error: null, tail: 'citadel: stopped by the operator before this step started\n' };
}

/** The end of an output, starting at a whole line when it was cut. */
function tailOf(output: Buffer): string {
  if (output.length <= SETUP_TAIL_BYTES) return output.toString('utf8');
  const end = output.subarray(output.length - SETUP_TAIL_BYTES);
  const newline = end.indexOf(0x0a);
  return end.subarray(newline === -1 ? 0 : newline + 1).toString('utf8');
}
