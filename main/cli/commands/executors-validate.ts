import type { ExecutorSetDescription } from '../../../shared/executors/executor-set-description';
import { hostAdapters } from '../../host/open-context';
import { validateExecutorFile } from '../../orchestrator';
import { displayArgv, printJson, type Io } from '../io/output';

/**
 * Describes the argv of the adapters a fork would launch with; no fork root or key store is opened.
 * `argv` is the contained one (a fork runs contained unless `--containment runtime-only`); the text
 * output adds the runtime-only argv of each profile whose argv depends on containment.
 */
export async function executorsValidate(io: Io, file: string, options: { json: boolean }): Promise<void> {
  const adapters = { adapters: hostAdapters() };
  const description = await validateExecutorFile(adapters, file, 'contained');
  if (options.json) printJson(io, description);
  else io.stdout(`Executor file is valid: ${file}\n${renderExecutorSet(description, await validateExecutorFile(adapters, file, 'runtime-only'))}`);
}

export function renderExecutorSet(description: ExecutorSetDescription, runtimeOnly: ExecutorSetDescription): string {
  const lines: string[] = [];
  for (const [index, profile] of description.profiles.entries()) {
    const model = profile.model ?? 'default';
    const provider = profile.local_provider === null ? '' : ` via ${profile.local_provider}`;
    lines.push(`  ${profile.profile_id} (${profile.runtime}, model ${model}${provider}) -> ${profile.branch_id}`);
    lines.push(`    profile digest  ${profile.profile_digest}`);
    lines.push(`    argv            ${displayArgv(profile.argv)}`);
    const uncontained = runtimeOnly.profiles[index]?.argv ?? profile.argv;
    if (displayArgv(uncontained) !== displayArgv(profile.argv)) lines.push(`    runtime-only    ${displayArgv(uncontained)}`);
  }
  lines.push(`executor set digest  ${description.executor_set_digest}`);
  return `${lines.join('\n')}\n`;
}
