import { z } from 'zod';
import { claudeRuntime } from './runtimes/claude';
import { codexRuntime } from './runtimes/codex';
import { copilotRuntime } from './runtimes/copilot';
import type { ExecutorRuntime, ForbiddenOptionValues } from './runtimes/descriptor';
import { geminiRuntime } from './runtimes/gemini';
import { opencodeRuntime } from './runtimes/opencode';
import { qwenRuntime } from './runtimes/qwen';

/**
 * The executor-file contract, the one source of truth for its types. Schema 1 is frozen by
 * spec/executor-profiles.md (claude | codex) and keeps its names here (`ExecutorFileSchema`,
 * `ExecutorProfileSchema`); schema 2 keeps its five fields and grammars and admits every runtime
 * below, each profile checked by its runtime's own descriptor (`./runtimes/<id>.ts`). A profile's
 * digest covers its five fields only, so the same profile digests the same in either schema.
 */

export { LocalProviderSchema, ModelIdSchema, ProfileIdSchema, type LocalProvider } from './runtimes/descriptor';
export { CLAUDE_EFFORTS, CLAUDE_PERMISSION_MODES, ClaudeOptionsSchema, ClaudeProfileSchema, type ClaudeOptions, type ClaudeProfile } from './runtimes/claude';
export { CODEX_SANDBOXES, CodexOptionsSchema, CodexProfileSchema, type CodexOptions, type CodexProfile } from './runtimes/codex';

/** Schema 1's runtimes, which are also the ones legacy `--runtimes` may name. */
export const SCHEMA_1_RUNTIMES = [claudeRuntime, codexRuntime] as const;
/** Every runtime schema 2 may name, whether or not this build registers an adapter for it. */
export const EXECUTOR_RUNTIMES = [...SCHEMA_1_RUNTIMES, geminiRuntime, opencodeRuntime, copilotRuntime, qwenRuntime] as const;

export const SCHEMA_1_RUNTIME_IDS = SCHEMA_1_RUNTIMES.map((runtime) => runtime.id);
export const Schema1RuntimeIdSchema = z.enum(SCHEMA_1_RUNTIME_IDS);
export type Schema1RuntimeId = z.infer<typeof Schema1RuntimeIdSchema>;

export const EXECUTOR_RUNTIME_IDS = EXECUTOR_RUNTIMES.map((runtime) => runtime.id);
export const ExecutorRuntimeIdSchema = z.enum(EXECUTOR_RUNTIME_IDS);
export type ExecutorRuntimeId = z.infer<typeof ExecutorRuntimeIdSchema>;

/** A runtime's descriptor by id, from the given list; never an inherited property (`__proto__`, `toString`). */
export function executorRuntimeFor(id: unknown, runtimes: readonly ExecutorRuntime[] = EXECUTOR_RUNTIMES): ExecutorRuntime | undefined {
  return runtimes.find((runtime) => runtime.id === id);
}

/** Every refused option value of every runtime, for reporting a violation outside one runtime's options. */
export const FORBIDDEN_OPTION_VALUES: ForbiddenOptionValues = mergeForbidden(EXECUTOR_RUNTIMES);

type ProfileSchemas<T extends readonly ExecutorRuntime[]> = { -readonly [K in keyof T]: T[K]['profileSchema'] };
const profileSchemas = <const T extends readonly ExecutorRuntime[]>(runtimes: T): ProfileSchemas<T> => runtimes.map((runtime) => runtime.profileSchema) as ProfileSchemas<T>;

/** A schema 1 profile: claude or codex (the frozen name, as spec/executor-profiles.md's tests use it). */
export const ExecutorProfileSchema = z.discriminatedUnion('runtime', profileSchemas(SCHEMA_1_RUNTIMES));
export type ExecutorProfile = z.infer<typeof ExecutorProfileSchema>;
/** A profile of any runtime schema 2 names; every schema 1 profile is one, unchanged. */
export const ExecutorProfileV2Schema = z.discriminatedUnion('runtime', profileSchemas(EXECUTOR_RUNTIMES));
export type ExecutorProfileV2 = z.infer<typeof ExecutorProfileV2Schema>;

export const EXECUTOR_FILE_SCHEMA_VERSIONS = [1, 2] as const;
export type ExecutorFileSchemaVersion = (typeof EXECUTOR_FILE_SCHEMA_VERSIONS)[number];
export const MIN_PROFILES = 2;

const uniqueProfileIds = {
  path: ['executors'],
  params: { rule: 'duplicate_profile_id' },
  message: 'profile IDs must be unique',
};

/** A schema 1 file, exactly as frozen: only `schema_version: 1`, only claude and codex. */
export const ExecutorFileSchema = z
  .strictObject({
    schema_version: z.literal(1),
    executors: z.array(ExecutorProfileSchema).min(MIN_PROFILES),
  })
  .refine((file) => new Set(file.executors.map((p) => p.profile_id)).size === file.executors.length, uniqueProfileIds);
export type ExecutorFile = z.infer<typeof ExecutorFileSchema>;

/** A schema 2 file: the same two fields, any runtime. */
export const ExecutorFileV2Schema = z
  .strictObject({
    schema_version: z.literal(2),
    executors: z.array(ExecutorProfileV2Schema).min(MIN_PROFILES),
  })
  .refine((file) => new Set(file.executors.map((p) => p.profile_id)).size === file.executors.length, uniqueProfileIds);
export type ExecutorFileV2 = z.infer<typeof ExecutorFileV2Schema>;

/** A file of either supported version: what `executors validate`, `fork start --executors`, New Fork and saved sets take. */
export const AnyExecutorFileSchema = z.discriminatedUnion('schema_version', [ExecutorFileSchema, ExecutorFileV2Schema]);
export type AnyExecutorFile = z.infer<typeof AnyExecutorFileSchema>;

/**
 * The version a file of these profiles is written as: 1 while every runtime is one schema 1
 * knows, so a claude/codex set stays byte-for-byte the file it always was; 2 otherwise.
 */
export function executorFileVersionFor(profiles: readonly { readonly runtime: string }[]): ExecutorFileSchemaVersion {
  return profiles.every((profile) => Schema1RuntimeIdSchema.safeParse(profile.runtime).success) ? 1 : 2;
}

function mergeForbidden(runtimes: readonly ExecutorRuntime[]): ForbiddenOptionValues {
  const merged: Record<string, Record<string, string>> = {};
  for (const runtime of runtimes) {
    for (const [option, values] of Object.entries(runtime.forbiddenValues)) merged[option] = { ...merged[option], ...values };
  }
  return merged;
}
