import { z } from 'zod';

/** The frozen executor-file contract (spec/executor-profiles.md), as the one source of truth for its types. */

export const RUNTIME_IDS = ['claude', 'codex'] as const;
export const RuntimeIdSchema = z.enum(RUNTIME_IDS);
export type RuntimeId = z.infer<typeof RuntimeIdSchema>;

export const ProfileIdSchema = z.string().regex(/^[a-z][a-z0-9-]{0,47}$/, 'a profile id: lowercase letters, digits and "-", starting with a letter, at most 48 characters');
export const ModelIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/, 'a model id: letters, digits and . _ : @ -, starting with a letter or digit, at most 128 characters');
export const LocalProviderSchema = z.enum(['ollama', 'lmstudio']);
export type LocalProvider = z.infer<typeof LocalProviderSchema>;

export const CLAUDE_PERMISSION_MODES = ['acceptEdits', 'auto', 'manual', 'dontAsk', 'plan'] as const;
export const CLAUDE_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export const CODEX_SANDBOXES = ['read-only', 'workspace-write'] as const;

export const ClaudeOptionsSchema = z.strictObject({
  permission_mode: z.enum(CLAUDE_PERMISSION_MODES).optional(),
  effort: z.enum(CLAUDE_EFFORTS).optional(),
});
export const CodexOptionsSchema = z.strictObject({
  sandbox: z.enum(CODEX_SANDBOXES).optional(),
});
export type ClaudeOptions = z.infer<typeof ClaudeOptionsSchema>;
export type CodexOptions = z.infer<typeof CodexOptionsSchema>;

/** The runtime-specific option schema, by runtime: used to report options given to the wrong runtime. */
export const OPTIONS_SCHEMA_BY_RUNTIME = {
  claude: ClaudeOptionsSchema,
  codex: CodexOptionsSchema,
} as const satisfies Record<RuntimeId, z.ZodObject>;

/** Values the runtimes advertise that Citadel refuses because they weaken containment. */
export const FORBIDDEN_OPTION_VALUES: Readonly<Record<string, readonly string[]>> = {
  permission_mode: ['bypassPermissions'],
  sandbox: ['danger-full-access'],
};

export const ClaudeProfileSchema = z.strictObject({
  profile_id: ProfileIdSchema,
  runtime: z.literal('claude'),
  model: ModelIdSchema.nullable(),
  local_provider: z.null(),
  adapter_options: ClaudeOptionsSchema,
});

export const CodexProfileSchema = z
  .strictObject({
    profile_id: ProfileIdSchema,
    runtime: z.literal('codex'),
    model: ModelIdSchema.nullable(),
    local_provider: LocalProviderSchema.nullable(),
    adapter_options: CodexOptionsSchema,
  })
  .refine((p) => p.local_provider === null || p.model !== null, {
    path: ['model'],
    params: { rule: 'provider_requires_model' },
    message: 'a local provider requires an explicit model',
  });

export const ExecutorProfileSchema = z.discriminatedUnion('runtime', [ClaudeProfileSchema, CodexProfileSchema]);
export type ExecutorProfile = z.infer<typeof ExecutorProfileSchema>;
export type ClaudeProfile = z.infer<typeof ClaudeProfileSchema>;
export type CodexProfile = z.infer<typeof CodexProfileSchema>;

export const EXECUTOR_FILE_SCHEMA_VERSION = 1;
export const MIN_PROFILES = 2;

export const ExecutorFileSchema = z
  .strictObject({
    schema_version: z.literal(EXECUTOR_FILE_SCHEMA_VERSION),
    executors: z.array(ExecutorProfileSchema).min(MIN_PROFILES),
  })
  .refine((file) => new Set(file.executors.map((p) => p.profile_id)).size === file.executors.length, {
    path: ['executors'],
    params: { rule: 'duplicate_profile_id' },
    message: 'profile IDs must be unique',
  });
export type ExecutorFile = z.infer<typeof ExecutorFileSchema>;
