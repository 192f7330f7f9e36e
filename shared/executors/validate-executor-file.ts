import { z } from 'zod';
import { CitadelError, fail, ok, type Result, type Violation } from '../errors';
import { formatJsonPath, parseJsonText } from '../json-text';
import { violation as v, zodViolations } from '../zod-violations';
import {
  AnyExecutorFileSchema,
  EXECUTOR_RUNTIMES,
  ExecutorFileSchema,
  executorRuntimeFor,
  ExecutorRuntimeIdSchema,
  FORBIDDEN_OPTION_VALUES,
  LocalProviderSchema,
  MIN_PROFILES,
  ModelIdSchema,
  ProfileIdSchema,
  SCHEMA_1_RUNTIMES,
  Schema1RuntimeIdSchema,
  type AnyExecutorFile,
  type ExecutorFile,
} from './profile-schema';
import type { ExecutorRuntime, LocalProvider } from './runtimes/descriptor';

/**
 * Validates an executor file and reports every violation at once, each with its JSON path and a
 * rule code. The strict zod schemas in profile-schema.ts stay the final gate and the types' source.
 * `validateExecutorFile` and `parseExecutorFileText` are the frozen schema 1 contract and refuse
 * any other version; the `Any` pair takes schema 1 or 2, and is what every input path uses.
 */
export function validateExecutorFile(input: unknown): Result<ExecutorFile> {
  return finish(input, collectViolations(input, [SCHEMA_1]), ExecutorFileSchema);
}

/** Parses schema 1 executor-file text (size, depth, syntax and duplicate-key checks first), then validates it. */
export function parseExecutorFileText(text: string): Result<ExecutorFile> {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return fail(invalid([parsed.violation]));
  return validateExecutorFile(parsed.value);
}

/** An executor file of schema 1 or 2, each checked by its own version's rules. */
export function validateAnyExecutorFile(input: unknown): Result<AnyExecutorFile> {
  return finish(input, collectViolations(input, [SCHEMA_1, SCHEMA_2]), AnyExecutorFileSchema);
}

/** Parses executor-file text of schema 1 or 2, with the same text checks first. */
export function parseAnyExecutorFileText(text: string): Result<AnyExecutorFile> {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return fail(invalid([parsed.violation]));
  return validateAnyExecutorFile(parsed.value);
}

function finish<F>(input: unknown, violations: Violation[], schema: z.ZodType<F>): Result<F> {
  if (violations.length === 0) {
    const parsed = schema.safeParse(input);
    if (parsed.success) return ok(parsed.data);
    violations.push(...zodViolations(parsed.error.issues, [], input, FORBIDDEN_OPTION_VALUES));
  }
  return fail(invalid(violations));
}

function invalid(violations: readonly Violation[]): CitadelError {
  const count = violations.length === 1 ? '1 violation' : `${violations.length} violations`;
  return new CitadelError('EXECUTOR_FILE_INVALID', `the executor file is invalid (${count})`, { violations });
}

/** What one schema version allows: its runtimes, and how it words a local provider its runtime lacks. */
interface VersionRules {
  readonly version: number;
  readonly runtimes: readonly ExecutorRuntime[];
  readonly profileShape: z.ZodType;
  providerViolation(runtime: ExecutorRuntime, provider: LocalProvider, at: PropertyKey[]): Violation;
}

const profileShape = (runtime: z.ZodType): z.ZodType =>
  z.strictObject({
    profile_id: ProfileIdSchema,
    runtime,
    model: ModelIdSchema.nullable(),
    local_provider: LocalProviderSchema.nullable(),
    adapter_options: z.record(z.string(), z.unknown()),
  });

const SCHEMA_1: VersionRules = {
  version: 1,
  runtimes: SCHEMA_1_RUNTIMES,
  profileShape: profileShape(Schema1RuntimeIdSchema),
  // Only codex takes one in schema 1; the frozen rule names it.
  providerViolation: (_runtime, provider, at) => v([...at, 'local_provider'], 'provider_requires_codex', `local provider "${provider}" is allowed only with the codex runtime`),
};

const WITH_PROVIDERS = EXECUTOR_RUNTIMES.filter((runtime) => runtime.localProviders.length > 0).map((runtime) => runtime.id);

const SCHEMA_2: VersionRules = {
  version: 2,
  runtimes: EXECUTOR_RUNTIMES,
  profileShape: profileShape(ExecutorRuntimeIdSchema),
  providerViolation: (runtime, provider, at) =>
    v(
      [...at, 'local_provider'],
      'provider_not_supported',
      `local provider "${provider}" is not available with the ${runtime.id} runtime; runtimes with a local provider: ${WITH_PROVIDERS.join(', ')}`,
    ),
};

const TOP_LEVEL_FIELDS = ['schema_version', 'executors'];

/** Every violation, by the rules of the version the file declares when it is one of `versions`; any other file's profiles are still checked, by schema 1's rules. */
function collectViolations(input: unknown, versions: readonly VersionRules[]): Violation[] {
  if (!isPlainObject(input)) {
    return [v([], 'wrong_type', 'expected a JSON object with exactly the fields schema_version and executors')];
  }
  const out: Violation[] = [];
  for (const key of Object.keys(input)) {
    if (!TOP_LEVEL_FIELDS.includes(key)) out.push(v([key], 'unknown_field', `unknown field "${key}"`));
  }
  const declared = versions.find((rules) => rules.version === input.schema_version);
  if (!('schema_version' in input)) out.push(v(['schema_version'], 'missing_field', 'schema_version is required'));
  else if (declared === undefined) {
    out.push(v(['schema_version'], 'unsupported_schema_version', `schema_version must be ${versions.map((rules) => rules.version).join(' or ')}`));
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
  const rules = declared ?? SCHEMA_1;
  executors.forEach((profile, i) => out.push(...profileViolations(profile, ['executors', i], rules)));
  out.push(...duplicateIdViolations(executors));
  return out;
}

function profileViolations(profile: unknown, at: PropertyKey[], rules: VersionRules): Violation[] {
  const shape = rules.profileShape.safeParse(profile);
  const out = shape.success ? [] : zodViolations(shape.error.issues, at, profile, FORBIDDEN_OPTION_VALUES);
  if (!isPlainObject(profile)) return out;

  const runtime = executorRuntimeFor(profile.runtime, rules.runtimes);
  if (runtime === undefined) return out;
  if (isPlainObject(profile.adapter_options)) {
    out.push(...optionViolations(runtime, rules.runtimes, profile.adapter_options, [...at, 'adapter_options']));
  }
  const provider = LocalProviderSchema.safeParse(profile.local_provider);
  if (provider.success) {
    if (!runtime.localProviders.includes(provider.data)) out.push(rules.providerViolation(runtime, provider.data, at));
    if (profile.model === null) {
      out.push(v([...at, 'model'], 'provider_requires_model', `local provider "${provider.data}" requires an explicit model`));
    }
  }
  return out;
}

function optionViolations(runtime: ExecutorRuntime, runtimes: readonly ExecutorRuntime[], options: Record<string, unknown>, at: PropertyKey[]): Violation[] {
  const parsed = runtime.options.safeParse(options);
  if (parsed.success) return [];
  return parsed.error.issues.flatMap((issue): Violation[] => {
    if (issue.code !== 'unrecognized_keys') return zodViolations([issue], at, options, runtime.forbiddenValues);
    return issue.keys.map((key) => {
      const owners = runtimes.filter((other) => other !== runtime && Object.hasOwn(other.options.shape, key)).map((other) => other.id);
      return owners.length > 0
        ? v([...at, key], 'option_for_other_runtime', `"${key}" is a ${owners.join(' and ')} option; it is not accepted for the ${runtime.id} runtime`)
        : v([...at, key], 'unknown_field', `unknown ${runtime.id} option "${key}"`);
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
