import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { sha256Digest } from '../../shared/digest';
import { CitadelError, type Violation } from '../../shared/errors';
import { BUILTIN_STEPS, WorkflowFileSchema, type Verifier, type Workflow } from '../../shared/fork/workflow';
import { MAX_JSON_FILE_BYTES, parseJsonText } from '../../shared/json-text';
import { zodViolations } from '../../shared/zod-violations';
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
 * protected too: an agent must not pass by editing its own verifier.
 */
export async function loadWorkflow(file: string | undefined, repoTopLevel: string): Promise<LoadedWorkflow> {
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
  return {
    workflow: { source: 'file', steps: parsed.data.steps, file_path_in_repo: inRepo, file_digest: sha256Digest(read.text) },
    verifier: { builtin: ['git_diff_check'], command: parsed.data.verifier },
    protectedPaths: [...parsed.data.protected_paths, ...(inRepo ? [inRepo] : [])],
  };
}
