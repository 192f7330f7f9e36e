import { z } from 'zod';
import { ExecutorSetDescriptionSchema } from '../executors/executor-set-description';
import { CommitShaSchema } from './ids';
import { IncludeConfirmationSchema } from './include-confirmation';
import { ParentRefSchema } from './lineage';
import { WorkflowConfirmationSchema } from './workflow-confirmation';

/** One problem found at one field of the New Fork form, in plain words, with the code Start would refuse with. */
export const FieldProblemSchema = z.strictObject({ code: z.string(), message: z.string() });
export type FieldProblem = z.infer<typeof FieldProblemSchema>;

/** What the preview found at one field: problems block Start; warnings are facts the operator should see. */
export const FieldCheckSchema = z.strictObject({ problems: z.array(FieldProblemSchema), warnings: z.array(z.string()) });
export type FieldCheck = z.infer<typeof FieldCheckSchema>;

/**
 * The New Fork preview: every field checked as `startFork` would check it, so an error shows at its
 * field before Start, plus what would run. `ready` is true only when no field has a problem.
 */
export const StartPreviewSchema = z.strictObject({
  ready: z.boolean(),
  fields: z.strictObject({
    objective: FieldCheckSchema,
    repo: FieldCheckSchema,
    executors: FieldCheckSchema,
    workflow_file: FieldCheckSchema,
    budget_seconds: FieldCheckSchema,
    max_attempts: FieldCheckSchema,
    budget_tokens: FieldCheckSchema,
  }),
  schema_version: z.union([z.literal(1), z.literal(2)]).nullable(),
  executors: ExecutorSetDescriptionSchema.nullable(),
  repository: z
    .strictObject({
      root: z.string(),
      head: z.string(),
      branch: z.string().nullable(),
      dirty: z.boolean(),
      /**
       * The ignored files `.worktreeinclude` copies into each worktree (names and sizes, never
       * contents) and whether the operator confirmed that list; null when it names no file.
       */
      worktree_include: IncludeConfirmationSchema.nullable(),
    })
    .nullable(),
  workflow: z
    .strictObject({
      source: z.enum(['builtin', 'file', 'inline']),
      /** The repository's own workflow file (`.citadel/workflow.json`) when it is used because no workflow file was named; else null. */
      found_in_repository: z.string().nullable(),
      steps: z.array(z.string()),
      setup: z.array(z.strictObject({ id: z.string(), argv: z.array(z.string()), network: z.string() })),
      verifier: z.array(z.string()).nullable(),
      /**
       * When the repository's own workflow file runs as it is: what it does and whether the operator
       * confirmed this file for this repository (Start needs the tick otherwise); else null.
       */
      repository_file: WorkflowConfirmationSchema.nullable(),
    })
    .nullable(),
  /**
   * Issue 32: a follow-up's start, once its parent checks out: the branch it continues, the commit
   * it starts from (that branch's result, not the repository's HEAD), and whether it runs the
   * parent's frozen workflow (no workflow named). Absent or null for a first fork.
   */
  follow_up: z.strictObject({ from: ParentRefSchema, base_revision: CommitShaSchema, parent_workflow: z.boolean() }).nullable().optional(),
});
export type StartPreview = z.infer<typeof StartPreviewSchema>;
