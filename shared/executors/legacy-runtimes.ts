import { CitadelError, fail, ok, type Result, type Violation } from '../errors';
import { canonicalProfileOrder } from './executor-digests';
import { MIN_PROFILES, SCHEMA_1_RUNTIME_IDS, Schema1RuntimeIdSchema, type ExecutorProfile } from './profile-schema';

/**
 * `--runtimes claude,codex` (decisions D4): one canonical profile per runtime with
 * profile_id = runtime and null model/provider. Compatibility input for schema 1 forks, so only
 * schema 1's runtimes: a newer runtime is named in an executor file.
 */
export function synthesizeLegacyProfiles(list: string): Result<ExecutorProfile[]> {
  const entries = list.split(',').map((entry) => entry.trim());
  const violations: Violation[] = [];
  const seen = new Set<string>();
  const profiles: ExecutorProfile[] = [];
  entries.forEach((entry, i) => {
    const path = `--runtimes[${i}]`;
    const runtime = Schema1RuntimeIdSchema.safeParse(entry);
    if (entry === '') violations.push({ path, rule: 'empty_entry', message: 'empty runtime name' });
    else if (!runtime.success) {
      violations.push({ path, rule: 'unknown_runtime', message: `unknown runtime "${entry}"; expected one of ${SCHEMA_1_RUNTIME_IDS.join(', ')}` });
    } else if (seen.has(entry)) violations.push({ path, rule: 'duplicate_runtime', message: `runtime "${entry}" is listed twice` });
    else {
      seen.add(entry);
      profiles.push({ profile_id: runtime.data, runtime: runtime.data, model: null, local_provider: null, adapter_options: {} });
    }
  });
  if (entries.length < MIN_PROFILES) {
    violations.push({ path: '--runtimes', rule: 'too_few_runtimes', message: `at least ${MIN_PROFILES} runtimes are required` });
  }
  if (violations.length > 0) {
    return fail(new CitadelError('RUNTIMES_INVALID', `--runtimes is invalid: ${violations.map((x) => x.message).join('; ')}`, { violations }));
  }
  return ok(canonicalProfileOrder(profiles));
}
