import { z } from 'zod';

/** A bare executable name resolved on PATH: no separators, so a workflow cannot name a path. */
const BareCommandSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/, 'a bare executable name, resolved on PATH');

export const VerifierCommandSchema = z.strictObject({
  command: BareCommandSchema,
  args: z.array(z.string().max(4096)).max(64),
  timeout_seconds: z.number().int().min(1).max(24 * 3600),
});
export type VerifierCommand = z.infer<typeof VerifierCommandSchema>;

const ProtectedPathSchema = z
  .string()
  .min(1)
  .max(512)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'a repository-relative path or glob without ..');

/** The `--workflow FILE` format (decisions D7). Strict: unknown fields are rejected. */
export const WorkflowFileSchema = z
  .strictObject({
    schema_version: z.literal(1),
    steps: z
      .array(z.strictObject({ id: z.string().regex(/^[a-z][a-z0-9-]{0,47}$/), instruction: z.string().min(1).max(8000) }))
      .min(1)
      .max(50),
    verifier: VerifierCommandSchema,
    protected_paths: z.array(ProtectedPathSchema).max(200),
  })
  .refine((w) => new Set(w.steps.map((s) => s.id)).size === w.steps.length, { path: ['steps'], message: 'step ids must be unique' });
export type WorkflowFile = z.infer<typeof WorkflowFileSchema>;

/** The workflow a fork runs, as bound into its contract. */
export const WorkflowSchema = z.strictObject({
  source: z.enum(['builtin', 'file']),
  steps: z.array(z.strictObject({ id: z.string(), instruction: z.string() })),
  /** Repository-relative path of the workflow file when it lives in the repository (then it is protected too). */
  file_path_in_repo: z.string().nullable(),
  file_digest: z.string().nullable(),
});
export type Workflow = z.infer<typeof WorkflowSchema>;

/** The verifier a fork runs: `git diff --check` always, plus the workflow's command when there is one. */
export const VerifierSchema = z.strictObject({
  builtin: z.tuple([z.literal('git_diff_check')]),
  command: VerifierCommandSchema.nullable(),
});
export type Verifier = z.infer<typeof VerifierSchema>;

export const BUILTIN_STEPS = [
  { id: 'implement', instruction: 'Make the change the objective asks for, in this worktree only.' },
] as const;
