import type { z } from 'zod';
import type { ExecutorSetDescription } from '../../shared/executors/executor-set-description';
import { parseExecutorFileText } from '../../shared/executors/validate-executor-file';
import type { ExecutorChoiceSchema } from '../../shared/ipc/contract';
import { describeExecutorSet } from '../executors/describe-executor-set';
import { loadExecutorFile } from '../executors/load-executor-file';
import type { OrchestratorContext } from '../host/context';
import { resolveExecutorChoice } from './executor-choice';

/** Only the runtime plug-ins: describing an executor set reads nothing else of the host. */
type Adapters = Pick<OrchestratorContext, 'adapters'>;

export interface ForkPreview {
  readonly schema_version: 1 | 2;
  readonly executors: ExecutorSetDescription;
}

/** What `startFork` would run for this choice: the schema, digests and each exact argv of the same adapters it launches with. */
export function previewFork(ctx: Adapters, choice: z.infer<typeof ExecutorChoiceSchema>): ForkPreview {
  const resolved = resolveExecutorChoice(choice);
  return { schema_version: resolved.schemaVersion, executors: describeExecutorSet(resolved.profiles, ctx.adapters) };
}

/** An executor file's text, validated and described. */
export function validateExecutors(ctx: Adapters, text: string): ExecutorSetDescription {
  const file = parseExecutorFileText(text);
  if (!file.ok) throw file.error;
  return describeExecutorSet(file.value.executors, ctx.adapters);
}

/** `citadel executors validate FILE`: the file read, validated and described. */
export async function validateExecutorFile(ctx: Adapters, file: string): Promise<ExecutorSetDescription> {
  return describeExecutorSet((await loadExecutorFile(file)).executors, ctx.adapters);
}
