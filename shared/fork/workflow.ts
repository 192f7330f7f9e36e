import { z } from 'zod';

/** A bare executable name resolved on PATH: no separators, so a workflow cannot name a path. */
const BareCommandSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/, 'a bare executable name, resolved on PATH');

export const VerifierCommandSchema = z.strictObject({
  command: BareCommandSchema,
  args: z.array(z.string().max(4096)).max(64),
  timeout_seconds: z.number().int('a whole number of seconds').min(1, 'at least 1 second').max(24 * 3600, 'at most 86400 seconds (one day)'),
});
export type VerifierCommand = z.infer<typeof VerifierCommandSchema>;

const ProtectedPathSchema = z
  .string()
  .min(1)
  .max(512)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'a repository-relative path or glob without ..');

const StepIdSchema = z.string().regex(/^[a-z][a-z0-9-]{0,47}$/, 'an id of lowercase letters, digits and -, starting with a letter (at most 48)');

/**
 * Where a setup step may connect (issue 13): nowhere, or only the package registries its
 * toolchain is configured with (read from the toolchain's own config, never written here).
 */
export const SetupNetworkSchema = z.enum(['none', 'registries']);
export type SetupNetwork = z.infer<typeof SetupNetworkSchema>;

/** One setup step as the workflow file writes it: shell-free, a bare command on PATH. */
export const SetupStepFileSchema = z.strictObject({
  id: StepIdSchema,
  command: BareCommandSchema,
  args: z.array(z.string().max(4096)).max(64).default([]),
  timeout_seconds: z.number().int('a whole number of seconds').min(1, 'at least 1 second').max(6 * 3600, 'at most 21600 seconds (six hours)'),
  network: SetupNetworkSchema.default('none'),
});
export type SetupStepFile = z.infer<typeof SetupStepFileSchema>;

const uniqueIds = (items: readonly { readonly id: string }[]): boolean => new Set(items.map((s) => s.id)).size === items.length;

const SetupListSchema = z.array(SetupStepFileSchema).max(20).refine(uniqueIds, 'setup step ids must be unique');

const WorkflowCore = {
  steps: z
    .array(z.strictObject({ id: StepIdSchema, instruction: z.string().min(1).max(8000) }))
    .min(1)
    .max(50)
    .refine(uniqueIds, 'step ids must be unique'),
  verifier: VerifierCommandSchema,
  protected_paths: z.array(ProtectedPathSchema).max(200),
};

/**
 * The `--workflow FILE` format (decisions D7). Strict: unknown fields are rejected. Version 2 adds
 * `setup` (issue 13); a version 1 file means exactly what it meant before.
 */
/** A version 2 workflow file, as `citadel init` writes it. */
export const WorkflowFileV2Schema = z.strictObject({
  schema_version: z.literal(2),
  ...WorkflowCore,
  setup: SetupListSchema.default([]),
});
export type WorkflowFileV2 = z.infer<typeof WorkflowFileV2Schema>;

export const WorkflowFileSchema = z.discriminatedUnion('schema_version', [z.strictObject({ schema_version: z.literal(1), ...WorkflowCore }), WorkflowFileV2Schema]);
export type WorkflowFile = z.infer<typeof WorkflowFileSchema>;

/**
 * A workflow as the New Fork editor hands it over (issue 13 item 5), instead of a file: version 2
 * written out in full, except that the verifier command may be null (only `git diff --check`, as
 * the built-in workflow). The orchestrator parses it with this schema and freezes exactly it.
 */
export const InlineWorkflowSchema = z.strictObject({
  schema_version: z.literal(2),
  ...WorkflowCore,
  verifier: VerifierCommandSchema.nullable(),
  setup: SetupListSchema,
});
export type InlineWorkflow = z.infer<typeof InlineWorkflowSchema>;

/**
 * A setup step as the contract binds it: the file's step with its network made explicit and, for
 * `registries`, the registry hosts (port 443) it may reach, resolved from the toolchain's config
 * when the fork was created, so the contract says exactly where setup may connect.
 */
export const SetupStepSchema = z.strictObject({
  id: z.string(),
  command: BareCommandSchema,
  args: z.array(z.string()),
  timeout_seconds: z.number().int().min(1),
  network: SetupNetworkSchema,
  registry_hosts: z.array(z.string()),
});
export type SetupStep = z.infer<typeof SetupStepSchema>;

/** Why setup failed, kept privately for `fork status` and the Fork view: the step and the end of its output. */
export const SetupFailureSchema = z.strictObject({
  step_id: z.string(),
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean(),
  /** The spawn's error code (e.g. ENOENT: the command is not on PATH), or null when it started. */
  spawn_error: z.string().nullable(),
  /** The last lines of its output (at most 4 KiB), for display; never in a receipt. */
  tail: z.string(),
});
export type SetupFailure = z.infer<typeof SetupFailureSchema>;

/** The workflow a fork runs, as bound into its contract. */
export const WorkflowSchema = z.strictObject({
  /** `inline`: edited in New Fork and frozen as edited (no file digest; the path of the file it was edited from, when that is in the repository). */
  source: z.enum(['builtin', 'file', 'inline']),
  steps: z.array(z.strictObject({ id: z.string(), instruction: z.string() })),
  /** Repository-relative path of the workflow file when it lives in the repository (then it is protected too). */
  file_path_in_repo: z.string().nullable(),
  file_digest: z.string().nullable(),
  /**
   * Setup steps Citadel runs in each branch worktree before its runtime starts (issue 13). Absent
   * when there are none, so every contract without setup keeps its digest.
   */
  setup: z.array(SetupStepSchema).min(1).optional(),
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
