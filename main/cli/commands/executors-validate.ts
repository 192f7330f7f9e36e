import type { ExecutorSetDescription } from '../../../shared/executors/executor-set-description';
import { hostAdapters } from '../../host/open-context';
import { validateExecutorFile } from '../../orchestrator';
import { displayArgv, printJson, type Io } from '../output';

/** Describes the argv of the adapters a fork would launch with; no fork root or key store is opened. */
export async function executorsValidate(io: Io, file: string, options: { json: boolean }): Promise<void> {
  const description = await validateExecutorFile({ adapters: hostAdapters() }, file);
  if (options.json) printJson(io, description);
  else io.stdout(`Executor file is valid: ${file}\n${renderExecutorSet(description)}`);
}

export function renderExecutorSet(description: ExecutorSetDescription): string {
  const lines: string[] = [];
  for (const profile of description.profiles) {
    const model = profile.model ?? 'default';
    const provider = profile.local_provider === null ? '' : ` via ${profile.local_provider}`;
    lines.push(`  ${profile.profile_id} (${profile.runtime}, model ${model}${provider}) -> ${profile.branch_id}`);
    lines.push(`    profile digest  ${profile.profile_digest}`);
    lines.push(`    argv            ${displayArgv(profile.argv)}`);
  }
  lines.push(`executor set digest  ${description.executor_set_digest}`);
  return `${lines.join('\n')}\n`;
}
