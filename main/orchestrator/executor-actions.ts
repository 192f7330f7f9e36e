import type { z } from 'zod';
import type { ExecutorSetDescription } from '../../shared/executors/executor-set-description';
import { parseAnyExecutorFileText } from '../../shared/executors/validate-executor-file';
import type { ExecutorChoiceSchema } from '../../shared/ipc/contract';
import { describeExecutorSet } from '../executors/describe-executor-set';
import { loadExecutorFile } from '../executors/load-executor-file';
import type { OrchestratorContext } from '../host/context';
import type { InvocationContainment } from '../runtimes/adapter-contract/runtime-adapter';
import { resolveExecutorChoice } from './executor-choice';

/** Only the runtime plug-ins: describing an executor set reads nothing else of the host. */
type Adapters = Pick<OrchestratorContext, 'adapters'>;

export interface ForkPreview {
  readonly schema_version: 1 | 2;
  readonly executors: ExecutorSetDescription;
}

/**
 * What `startFork` would run for this choice: the schema, digests and each exact argv of the same
 * adapters it launches with. `containment` is how the fork would be contained: by default (`auto`)
 * a fork either runs contained or is refused, so that is the default here too.
 */
export function previewFork(ctx: Adapters, choice: z.infer<typeof ExecutorChoiceSchema>, containment: InvocationContainment = 'contained'): ForkPreview {
  const resolved = resolveExecutorChoice(choice);
  return { schema_version: resolved.schemaVersion, executors: describeExecutorSet(resolved.profiles, ctx.adapters, containment) };
}

/** An executor file's text, validated and described (argv as `previewFork`). */
export function validateExecutors(ctx: Adapters, text: string, containment: InvocationContainment = 'contained'): ExecutorSetDescription {
  const file = parseAnyExecutorFileText(text);
  if (!file.ok) throw file.error;
  return describeExecutorSet(file.value.executors, ctx.adapters, containment);
}

/** `citadel executors validate FILE`: the file read, validated and described (argv as `previewFork`). */
export async function validateExecutorFile(ctx: Adapters, file: string, containment: InvocationContainment = 'contained'): Promise<ExecutorSetDescription> {
  return describeExecutorSet((await loadExecutorFile(file)).executors, ctx.adapters, containment);
}
