import type { z } from 'zod';
import { synthesizeLegacyProfiles } from '../../shared/executors/legacy-runtimes';
import { executorFileVersionFor, type ExecutorProfileV2 } from '../../shared/executors/profile-schema';
import { validateAnyExecutorFile } from '../../shared/executors/validate-executor-file';
import { CitadelError } from '../../shared/errors';
import type { ExecutorChoiceSchema } from '../../shared/ipc/contract';
import type { ExecutorInput } from './create-fork';

export interface ResolvedExecutors {
  readonly input: ExecutorInput;
  readonly profiles: readonly ExecutorProfileV2[];
  /** Legacy runtimes make a schema 1 fork, validated profiles a schema 2 fork (decisions D4). */
  readonly schemaVersion: 1 | 2;
}

/**
 * The New Fork form's executor choice, checked exactly as the CLI checks `--runtimes` and an
 * `--executors` file: profiles go through the executor-file rules (count, unique ids, provider and
 * option rules), reported at their path in the request.
 */
export function resolveExecutorChoice(choice: z.infer<typeof ExecutorChoiceSchema>): ResolvedExecutors {
  if (choice.kind === 'runtimes') {
    const legacy = synthesizeLegacyProfiles(choice.list);
    if (!legacy.ok) throw legacy.error;
    return { input: choice, profiles: legacy.value, schemaVersion: 1 };
  }
  const file = validateAnyExecutorFile({ schema_version: executorFileVersionFor(choice.profiles), executors: choice.profiles });
  if (!file.ok) {
    const violations = (file.error.violations ?? []).map((v) => ({ ...v, path: v.path.replace(/^\$\.executors/, '$.executors.profiles') }));
    throw new CitadelError(file.error.code, file.error.message, { violations });
  }
  return { input: { kind: 'executors', profiles: file.value.executors }, profiles: file.value.executors, schemaVersion: 2 };
}
