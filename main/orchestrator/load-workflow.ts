import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { sha256Digest } from '../../shared/digest';
import { CitadelError, type Violation } from '../../shared/errors';
import { BUILTIN_STEPS, WorkflowFileSchema, type SetupStep, type Verifier, type Workflow, type WorkflowFile } from '../../shared/fork/workflow';
import { MAX_JSON_FILE_BYTES, parseJsonText } from '../../shared/json-text';
import { zodViolations } from '../../shared/zod-violations';
import { registryHostsFor } from '../setup/package-toolchain';
import { readBoundedText } from '../store/read-bounded-text';

export interface LoadedWorkflow {
  readonly workflow: Workflow;
  readonly verifier: Verifier;
  readonly protectedPaths: readonly string[];
}

export const BUILTIN_WORKFLOW: LoadedWorkflow = {
  workflow: { source: 'builtin', steps: [...BUILTIN_STEPS], file_path_in_repo: null, file_digest: null },
  verifier: { builtin: ['git_diff_check'], command: null },
  protectedPaths: [],
};

/**
 * Loads `--workflow FILE` (decisions D7). When the file lives inside the target repository it is
 * protected too: an agent must not pass by editing its own verifier. A version 2 file's setup steps
 * are bound with the registry hosts each `registries` step may reach, read now from its toolchain's
 * configuration (`env` is the operator's environment; the repository's own .npmrc counts).
 */
export async function loadWorkflow(file: string | undefined, repoTopLevel: string, env: Readonly<Record<string, string | undefined>>): Promise<LoadedWorkflow> {
  if (file === undefined) return BUILTIN_WORKFLOW;
  const read = await readBoundedText(file, MAX_JSON_FILE_BYTES, 'follow');
  if (!read.ok && read.kind === 'unreadable') {
    throw new CitadelError('WORKFLOW_FILE_UNREADABLE', `cannot read workflow file ${file}: ${read.reason}`, { details: { reason: read.reason } });
  }
  const invalid = (violations: Violation[]): CitadelError =>
    new CitadelError('WORKFLOW_FILE_INVALID', `the workflow file is invalid (${violations.length} violation(s))`, { violations });
  if (!read.ok) throw invalid([read.violation]);
  const json = parseJsonText(read.text);
  if (!json.ok) throw invalid([json.violation]);
  const parsed = WorkflowFileSchema.safeParse(json.value);
  if (!parsed.success) throw invalid(zodViolations(parsed.error.issues, [], json.value));
  // Both sides through realpath: a symlinked path to a file inside the repository is still inside it.
  const relative = path.relative(repoTopLevel, await realpath(file));
  const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  const inRepo = outside ? null : relative.split(path.sep).join('/');
  const setup = await setupSteps(parsed.data, repoTopLevel, env);
  return {
    workflow: { source: 'file', steps: parsed.data.steps, file_path_in_repo: inRepo, file_digest: sha256Digest(read.text), ...(setup.length === 0 ? {} : { setup }) },
    verifier: { builtin: ['git_diff_check'], command: parsed.data.verifier },
    protectedPaths: [...parsed.data.protected_paths, ...(inRepo ? [inRepo] : [])],
  };
}

/** The file's setup as the contract binds it; none for a version 1 file (which then means what it always meant). */
async function setupSteps(file: WorkflowFile, repoTopLevel: string, env: Readonly<Record<string, string | undefined>>): Promise<SetupStep[]> {
  if (file.schema_version === 1) return [];
  const steps: SetupStep[] = [];
  for (const step of file.setup) {
    const hosts = step.network === 'registries' ? await registryHostsFor(step.command, env, repoTopLevel) : [];
    steps.push({ id: step.id, command: step.command, args: step.args, timeout_seconds: step.timeout_seconds, network: step.network, registry_hosts: hosts });
  }
  return steps;
}
