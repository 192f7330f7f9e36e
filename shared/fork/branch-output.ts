import { z } from 'zod';
import { BranchIdSchema, ForkIdSchema } from './ids';

/**
 * What a branch printed, where the operator decides (issue 29): the ends of its runtime's stdout
 * and stderr, of each setup step's output and of each verifier step's, read from the attempt's
 * private files, redacted as the live trail is. Local display only: never in a receipt, a replay,
 * a proof or an attestation.
 */

/** A tail is at most the last OUTPUT_TAIL_MAX_LINES lines of the last OUTPUT_TAIL_MAX_BYTES of its log. */
export const OUTPUT_TAIL_MAX_LINES = 200;
export const OUTPUT_TAIL_MAX_BYTES = 64 * 1024;
/** "Show all" reads at most the last OUTPUT_LOG_MAX_BYTES of a log. */
export const OUTPUT_LOG_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The verifier's kept outputs in the order they are made: its receipt's steps, and the clean
 * checkout that can stop it before its command (`verification_tree`, no step of its own).
 */
export const VERIFIER_OUTPUT_STEPS = ['result_symlinks', 'protected_paths', 'git_diff_check', 'verification_tree', 'workflow_verifier'] as const;
export const VerifierOutputStepSchema = z.enum(VERIFIER_OUTPUT_STEPS);
export type VerifierOutputStep = z.infer<typeof VerifierOutputStepSchema>;

/** A setup step id as a workflow may name one (shared/fork/workflow.ts StepIdSchema). */
const SETUP_STEP_ID = '[a-z][a-z0-9-]{0,47}';

/** One kept log of a branch attempt: `stdout`, `stderr`, `setup:<step id>` or `verifier:<step>`. */
export const OutputLogIdSchema = z.string().regex(new RegExp(`^(?:stdout|stderr|setup:${SETUP_STEP_ID}|verifier:(?:${VERIFIER_OUTPUT_STEPS.join('|')}))$`));
export type OutputLogId = z.infer<typeof OutputLogIdSchema>;

export const OutputTextSchema = z.strictObject({
  log: OutputLogIdSchema,
  /** false: nothing is kept under this name (not run yet, or the attempt predates it); `text` is empty. */
  present: z.boolean(),
  /** Terminal control sequences removed; each line that looks like it holds a secret replaced by a note. */
  text: z.string(),
  /** Something before `text` was left out: the tail's bound, or the full log's. */
  truncated: z.boolean(),
  /** The kept log's size; null when absent. */
  stored_bytes: z.int().nonnegative().nullable(),
  /** How many lines of `text` were replaced because they look like they hold a secret. */
  hidden_lines: z.int().nonnegative(),
});
export type OutputText = z.infer<typeof OutputTextSchema>;

const StepStatusSchema = z.enum(['passed', 'failed', 'not_run']);

export const BranchOutputSchema = z.strictObject({
  fork_id: ForkIdSchema,
  branch_id: BranchIdSchema,
  attempt: z.int().min(1),
  tail_limit: z.strictObject({ lines: z.int().positive(), bytes: z.int().positive() }),
  runtime: z.strictObject({
    /** How the runtime ended, from its supervisor's final record; null while it runs or when it never started. */
    exit: z
      .strictObject({ code: z.int().nullable(), signal: z.string().nullable(), timed_out: z.boolean(), stopped: z.boolean(), spawn_error: z.string().nullable() })
      .nullable(),
    /** Bytes the runtime printed past the supervisor's cap, so never kept; null when nothing was dropped or it is not known. */
    dropped_bytes: z.strictObject({ stdout: z.int().nonnegative(), stderr: z.int().nonnegative() }).nullable(),
    stdout: OutputTextSchema,
    stderr: OutputTextSchema,
  }),
  /** The contract's setup steps, in order; empty without setup. `status` null: no record of it yet. */
  setup: z.array(
    z.strictObject({
      step_id: z.string(),
      argv: z.array(z.string()).nullable(),
      status: StepStatusSchema.nullable(),
      exit_code: z.int().nullable(),
      timed_out: z.boolean(),
      output: OutputTextSchema,
    }),
  ),
  /** The verifier steps that ran or left output, in order; `argv` only for the workflow's own command. */
  verifier: z.array(
    z.strictObject({
      step: VerifierOutputStepSchema,
      argv: z.array(z.string()).nullable(),
      status: StepStatusSchema.nullable(),
      exit_code: z.int().nullable(),
      timed_out: z.boolean(),
      output: OutputTextSchema,
    }),
  ),
  /** The kept log that explains the branch's failure or block (its failure code's), or null when none does. */
  explains: OutputLogIdSchema.nullable(),
});
export type BranchOutput = z.infer<typeof BranchOutputSchema>;
