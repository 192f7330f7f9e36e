import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { CitadelError } from '../../shared/errors';
import { WorkflowFileSchema } from '../../shared/fork/workflow';
import { REPOSITORY_WORKFLOW_PATH, type InitOutcome, type WorkflowProposal } from '../../shared/fork/workflow-proposal';
import { repositoryInfo } from '../git/repository';
import { proposeWorkflowFor } from '../setup/propose/propose-workflow';
import { writeFileDurably } from '../store/atomic-file';
import { WORKTREE_INCLUDE_FILE } from '../workspace/include-refusal';

/** Files meant to be committed and read by everyone who clones the repository: not private. */
const REPOSITORY_FILE_MODE = 0o644;

export interface InitOptions {
  readonly write: boolean;
  readonly force: boolean;
}

/** The workflow the repository's own conventions imply (New Fork's "Propose from the repository"); reads only. */
export async function proposeWorkflow(repo: string): Promise<WorkflowProposal> {
  return proposeWorkflowFor((await repositoryInfo(repo)).root);
}

/**
 * `citadel init`: the proposal, and with `write` the workflow written to `.citadel/workflow.json`
 * (never over an existing one without `force`) and the proposed `.worktreeinclude` when the
 * repository has none. A repository without a test command gets no workflow file, which needs a
 * verifier: WORKFLOW_NOT_RECOGNISED, with what was found, and nothing written.
 */
export async function initRepository(repo: string, options: InitOptions): Promise<InitOutcome> {
  const proposal = await proposeWorkflow(repo);
  if (proposal.workflow === null) {
    const found = proposal.findings.map((finding) => `${finding.proposal} (${finding.evidence})`);
    throw new CitadelError(
      'WORKFLOW_NOT_RECOGNISED',
      `no test command found in ${proposal.repo} (package.json scripts.test, pytest or unittest, go.mod, Cargo.toml), so no workflow is proposed${found.length === 0 ? '' : `; found: ${found.join('; ')}`}`,
      { details: { repo: proposal.repo, findings: proposal.findings } },
    );
  }
  if (!options.write) return { ...proposal, path: null, worktree_include_path: null, replaced: false };

  // What is written is exactly what `fork start` will read: checked with the file schema first.
  const document = WorkflowFileSchema.parse(proposal.workflow);
  const file = path.join(proposal.repo, REPOSITORY_WORKFLOW_PATH);
  const replaced = await assertWritable(file, options.force);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileDurably(file, `${JSON.stringify(document, null, 2)}\n`, { mode: REPOSITORY_FILE_MODE });

  const includeFile = path.join(proposal.repo, WORKTREE_INCLUDE_FILE);
  const writeInclude = proposal.worktree_include.length > 0 && (await lstat(includeFile).catch(() => null)) === null;
  if (writeInclude) await writeFileDurably(includeFile, `${proposal.worktree_include.join('\n')}\n`, { mode: REPOSITORY_FILE_MODE });
  return { ...proposal, path: file, worktree_include_path: writeInclude ? includeFile : null, replaced };
}

/** Whether the workflow file already exists (then only `force` replaces it); `.citadel` must be a folder, the file a file. */
async function assertWritable(file: string, force: boolean): Promise<boolean> {
  const folder = await lstat(path.dirname(file)).catch(() => null);
  if (folder !== null && !folder.isDirectory()) {
    throw new CitadelError('WORKFLOW_FILE_EXISTS', `${path.dirname(file)} exists and is not a folder; nothing was written`, { details: { path: path.dirname(file) } });
  }
  const existing = await lstat(file).catch(() => null);
  if (existing === null) return false;
  if (!existing.isFile()) throw new CitadelError('WORKFLOW_FILE_EXISTS', `${file} exists and is not a regular file; nothing was written`, { details: { path: file } });
  if (!force) throw new CitadelError('WORKFLOW_FILE_EXISTS', `${file} already exists; run with --force to replace it (nothing was written)`, { details: { path: file } });
  return true;
}
