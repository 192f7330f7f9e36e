import { z } from 'zod';
import { CitadelError, fail, ok, type Result, type Violation } from '../errors';
import { formatJsonPath, parseJsonText } from '../json-text';
import { violation as v, zodViolations } from '../zod-violations';
import {
  EXECUTOR_FILE_SCHEMA_VERSION,
  ExecutorFileSchema,
  FORBIDDEN_OPTION_VALUES,
  LocalProviderSchema,
  MIN_PROFILES,
  ModelIdSchema,
  OPTIONS_SCHEMA_BY_RUNTIME,
  ProfileIdSchema,
  RUNTIME_IDS,
  RuntimeIdSchema,
  type ExecutorFile,
  type RuntimeId,
} from './profile-schema';

/**
 * Validates an executor file and reports every violation at once, each with its JSON path and a
 * rule code. The strict zod schema in profile-schema.ts stays the final gate and the type's source.
 */
export function validateExecutorFile(input: unknown): Result<ExecutorFile> {
  const violations = collectViolations(input);
  if (violations.length === 0) {
    const parsed = ExecutorFileSchema.safeParse(input);
    if (parsed.success) return ok(parsed.data);
    violations.push(...zodViolations(parsed.error.issues, [], input, FORBIDDEN_OPTION_VALUES));
  }
  return fail(invalid(violations));
}

/** Parses executor-file text (size, depth, syntax and duplicate-key checks first), then validates it. */
export function parseExecutorFileText(text: string): Result<ExecutorFile> {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return fail(invalid([parsed.violation]));
  return validateExecutorFile(parsed.value);
}

function invalid(violations: readonly Violation[]): CitadelError {
  const count = violations.length === 1 ? '1 violation' : `${violations.length} violations`;
  return new CitadelError('EXECUTOR_FILE_INVALID', `the executor file is invalid (${count})`, { violations });
}

const TOP_LEVEL_FIELDS = ['schema_version', 'executors'];

function collectViolations(input: unknown): Violation[] {
  if (!isPlainObject(input)) {
    return [v([], 'wrong_type', 'expected a JSON object with exactly the fields schema_version and executors')];
  }
  const out: Violation[] = [];
  for (const key of Object.keys(input)) {
    if (!TOP_LEVEL_FIELDS.includes(key)) out.push(v([key], 'unknown_field', `unknown field "${key}"`));
  }
  if (!('schema_version' in input)) out.push(v(['schema_version'], 'missing_field', 'schema_version is required'));
  else if (input.schema_version !== EXECUTOR_FILE_SCHEMA_VERSION) {
    out.push(v(['schema_version'], 'unsupported_schema_version', `schema_version must be ${EXECUTOR_FILE_SCHEMA_VERSION}`));
  }
  if (!('executors' in input)) {
    out.push(v(['executors'], 'missing_field', 'executors is required'));
    return out;
  }
  const executors = input.executors;
  if (!Array.isArray(executors)) {
    out.push(v(['executors'], 'wrong_type', 'executors must be an array of profiles'));
    return out;
  }
  if (executors.length < MIN_PROFILES) {
    out.push(v(['executors'], 'too_few_profiles', `at least ${MIN_PROFILES} profiles are required; found ${executors.length}`));
  }
  executors.forEach((profile, i) => out.push(...profileViolations(profile, ['executors', i])));
  out.push(...duplicateIdViolations(executors));
  return out;
}

const ProfileShapeSchema = z.strictObject({
  profile_id: ProfileIdSchema,
  runtime: RuntimeIdSchema,
  model: ModelIdSchema.nullable(),
  local_provider: LocalProviderSchema.nullable(),
  adapter_options: z.record(z.string(), z.unknown()),
});

function profileViolations(profile: unknown, at: PropertyKey[]): Violation[] {
  const shape = ProfileShapeSchema.safeParse(profile);
  const out = shape.success ? [] : zodViolations(shape.error.issues, at, profile, FORBIDDEN_OPTION_VALUES);
  if (!isPlainObject(profile)) return out;

  const runtime = RuntimeIdSchema.safeParse(profile.runtime);
  if (!runtime.success) return out;
  if (isPlainObject(profile.adapter_options)) {
    out.push(...optionViolations(runtime.data, profile.adapter_options, [...at, 'adapter_options']));
  }
  const provider = LocalProviderSchema.safeParse(profile.local_provider);
  if (provider.success) {
    if (runtime.data !== 'codex') {
      out.push(v([...at, 'local_provider'], 'provider_requires_codex', `local provider "${provider.data}" is allowed only with the codex runtime`));
    }
    if (profile.model === null) {
      out.push(v([...at, 'model'], 'provider_requires_model', `local provider "${provider.data}" requires an explicit model`));
    }
  }
  return out;
}

function optionViolations(runtime: RuntimeId, options: Record<string, unknown>, at: PropertyKey[]): Violation[] {
  const parsed = OPTIONS_SCHEMA_BY_RUNTIME[runtime].safeParse(options);
  if (parsed.success) return [];
  return parsed.error.issues.flatMap((issue): Violation[] => {
    if (issue.code !== 'unrecognized_keys') return zodViolations([issue], at, options, FORBIDDEN_OPTION_VALUES);
    return issue.keys.map((key) => {
      const owner = RUNTIME_IDS.find((other) => other !== runtime && Object.hasOwn(OPTIONS_SCHEMA_BY_RUNTIME[other].shape, key));
      return owner
        ? v([...at, key], 'option_for_other_runtime', `"${key}" is a ${owner} option; it is not accepted for the ${runtime} runtime`)
        : v([...at, key], 'unknown_field', `unknown ${runtime} option "${key}"`);
    });
  });
}

function duplicateIdViolations(executors: readonly unknown[]): Violation[] {
  const firstIndex = new Map<string, number>();
  const out: Violation[] = [];
  executors.forEach((profile, i) => {
    if (!isPlainObject(profile) || typeof profile.profile_id !== 'string') return;
    const first = firstIndex.get(profile.profile_id);
    if (first === undefined) firstIndex.set(profile.profile_id, i);
    else {
      out.push(
        v(['executors', i, 'profile_id'], 'duplicate_profile_id', `profile_id "${profile.profile_id}" is already used by ${formatJsonPath(['executors', first])}`),
      );
    }
  });
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
