import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { sha256Digest } from '../../shared/digest';
import { CitadelError, type Violation } from '../../shared/errors';
import {
  BUILTIN_STEPS,
  InlineWorkflowSchema,
  WorkflowFileSchema,
  type InlineWorkflow,
  type SetupStep,
  type SetupStepFile,
  type Verifier,
  type Workflow,
  type WorkflowFile,
} from '../../shared/fork/workflow';
import type { RepositoryWorkflowSummary } from '../../shared/fork/workflow-confirmation';
import { REPOSITORY_WORKFLOW_PATH } from '../../shared/fork/workflow-proposal';
import { MAX_JSON_FILE_BYTES, parseJsonText } from '../../shared/json-text';
import { zodViolations } from '../../shared/zod-violations';
import { repositoryInfo } from '../git/repository';
import { npmConfigOnce, usesNpmConfig } from '../setup/package-toolchain';
import { assertProjectRegistries, MAX_NPMRC_BYTES } from '../setup/project-npmrc';
import { bindRegistries, readsNpmrc } from '../setup/registries';
import { readBoundedText } from '../store/read-bounded-text';
import { committedFiles } from './committed-file';

export interface LoadedWorkflow {
  readonly workflow: Workflow;
  readonly verifier: Verifier;
  readonly protectedPaths: readonly string[];
  /**
   * The repository's own workflow file (REPOSITORY_WORKFLOW_PATH, as `citadel init` writes it) when it
   * was used because no workflow file was named, so the operator is told; null otherwise.
   */
  readonly foundInRepository: string | null;
  /**
   * When the repository's own file is what runs as it is (not edited in New Fork): what it does, for
   * the operator to confirm before a fork uses it (main/orchestrator/workflow-confirmation.ts); else null.
   */
  readonly repositoryFile: RepositoryWorkflowSummary | null;
}

export const BUILTIN_WORKFLOW: LoadedWorkflow = {
  workflow: { source: 'builtin', steps: [...BUILTIN_STEPS], file_path_in_repo: null, file_digest: null },
  verifier: { builtin: ['git_diff_check'], command: null },
  protectedPaths: [],
  foundInRepository: null,
  repositoryFile: null,
};

/**
 * Where a fork's workflow comes from: a file, the New Fork editor's document (`inline`), or neither
 * (the built-in). Both together mean "edited from this file": the document is what runs, and the
 * file, when it lives in the repository, stays protected, as it would be had it started unchanged.
 */
export interface WorkflowChoice {
  readonly file?: string | undefined;
  /** Untrusted: parsed here with the shared InlineWorkflowSchema. */
  readonly inline?: unknown;
}

/**
 * The one place a fork's workflow is chosen: `startFork` and its preview both call this. No file
 * named means the repository's own `.citadel/workflow.json` when it has one (an edited document
 * was then edited from it, and the file stays protected), else the built-in workflow.
 */
export async function resolveWorkflow(choice: WorkflowChoice, repoTopLevel: string, env: Readonly<Record<string, string | undefined>>, revision = 'HEAD'): Promise<LoadedWorkflow> {
  const found = choice.file === undefined ? await repositoryWorkflow(repoTopLevel) : null;
  const file = choice.file ?? found ?? undefined;
  if (choice.inline !== undefined) return { ...(await inlineWorkflow(choice.inline, file, repoTopLevel, env, revision)), foundInRepository: found === null ? null : REPOSITORY_WORKFLOW_PATH };
  if (found === null) return loadWorkflow(file, repoTopLevel, env, revision);
  const { loaded, data } = await loadFile(found, repoTopLevel, env, revision);
  const repositoryFile: RepositoryWorkflowSummary = {
    path: REPOSITORY_WORKFLOW_PATH,
    digest: sha256Digest(data.text),
    setup: (loaded.workflow.setup ?? []).map((step) => ({ id: step.id, argv: [step.command, ...step.args], network: step.network })),
    verifier: [data.file.verifier.command, ...data.file.verifier.args],
    protected_paths: [...data.file.protected_paths],
  };
  return { ...loaded, foundInRepository: REPOSITORY_WORKFLOW_PATH, repositoryFile };
}

/**
 * `<repo>/.citadel/workflow.json` when it exists, else null. Anything there but a regular file in a
 * real folder of the repository (a symlinked `.citadel` or file, a folder, a path whose realpath
 * leaves the repository) is refused rather than passed over or followed: a repository must not
 * have Citadel read a workflow from elsewhere as if it were its own.
 */
async function repositoryWorkflow(repoTopLevel: string): Promise<string | null> {
  const folder = path.join(repoTopLevel, path.dirname(REPOSITORY_WORKFLOW_PATH));
  const file = path.join(repoTopLevel, REPOSITORY_WORKFLOW_PATH);
  const folderInfo = await lstatOrNull(folder);
  if (folderInfo === null) return null;
  if (folderInfo.isSymbolicLink()) throw notOwnFile(folder, `${path.dirname(REPOSITORY_WORKFLOW_PATH)} in the repository is a symlink; Citadel does not follow it`);
  if (!folderInfo.isDirectory()) return null;
  const info = await lstatOrNull(file);
  if (info === null) return null;
  if (!info.isFile()) throw notOwnFile(file, `${REPOSITORY_WORKFLOW_PATH} in the repository is not a regular file (a symlink or a folder); it is what fork start uses when no workflow is named`);
  const [realFile, realRoot] = await Promise.all([realpath(file), realpath(repoTopLevel)]);
  if (realFile !== path.join(realRoot, REPOSITORY_WORKFLOW_PATH)) throw notOwnFile(file, `${REPOSITORY_WORKFLOW_PATH} resolves outside the repository (to ${realFile}); Citadel does not follow it`);
  return file;
}

async function lstatOrNull(file: string): Promise<Awaited<ReturnType<typeof lstat>> | null> {
  return lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw new CitadelError('WORKFLOW_FILE_UNREADABLE', `cannot read workflow file ${file}: ${error.code ?? 'unknown'}`, { details: { reason: error.code ?? 'unknown' } });
  });
}

const notOwnFile = (where: string, message: string): CitadelError => new CitadelError('WORKFLOW_FILE_INVALID', message, { details: { path: where } });

/** The New Fork editor's document, edited from `file` when there is one. */
async function inlineWorkflow(inline: unknown, file: string | undefined, repoTopLevel: string, env: Readonly<Record<string, string | undefined>>, revision: string): Promise<LoadedWorkflow> {
  // Finite and strict, the schema stops at the first value that is not a workflow: no input depth reaches a recursive walk.
  const parsed = InlineWorkflowSchema.safeParse(inline);
  if (!parsed.success) {
    const violations = zodViolations(parsed.error.issues, [], inline);
    throw new CitadelError('WORKFLOW_INVALID', `the edited workflow is invalid (${violations.length} violation(s))`, { violations });
  }
  const origin = file === undefined ? null : await originInRepo(file, repoTopLevel);
  const setup = await bindSetup(parsed.data.setup, repoTopLevel, env, revision);
  return {
    workflow: { source: 'inline', steps: parsed.data.steps, file_path_in_repo: origin, file_digest: null, ...(setup.length === 0 ? {} : { setup }) },
    verifier: { builtin: ['git_diff_check'], command: parsed.data.verifier },
    protectedPaths: [...parsed.data.protected_paths, ...(origin === null ? [] : [origin])],
    foundInRepository: null,
    repositoryFile: null,
  };
}

/** The edited workflow's file, repository-relative when it lives in the repository; it must still exist. */
async function originInRepo(file: string, repoTopLevel: string): Promise<string | null> {
  const real = await realpath(file).catch((error: NodeJS.ErrnoException) => {
    throw new CitadelError('WORKFLOW_FILE_UNREADABLE', `cannot read workflow file ${file}: ${error.code ?? 'unknown'}`, { details: { reason: error.code ?? 'unknown' } });
  });
  return pathInRepo(real, repoTopLevel);
}

/** Both sides through realpath: a symlinked path to a file inside the repository is still inside it. */
function pathInRepo(realFile: string, repoTopLevel: string): string | null {
  const relative = path.relative(repoTopLevel, realFile);
  const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  return outside ? null : relative.split(path.sep).join('/');
}

/**
 * Loads `--workflow FILE` (decisions D7). When the file lives inside the target repository it is
 * protected too: an agent must not pass by editing its own verifier. A version 2 file's setup steps
 * are bound with the registry hosts each `registries` step may reach, read now from its toolchain's
 * configuration (`env` is the operator's environment; the repository's committed settings are checked).
 */
export async function loadWorkflow(file: string | undefined, repoTopLevel: string, env: Readonly<Record<string, string | undefined>>, revision = 'HEAD'): Promise<LoadedWorkflow> {
  if (file === undefined) return BUILTIN_WORKFLOW;
  return (await loadFile(file, repoTopLevel, env, revision)).loaded;
}

async function loadFile(file: string, repoTopLevel: string, env: Readonly<Record<string, string | undefined>>, revision: string): Promise<{ loaded: LoadedWorkflow; data: { text: string; file: WorkflowFile } }> {
  const { text, data } = await readWorkflowFile(file);
  const inRepo = pathInRepo(await realpath(file), repoTopLevel);
  // A version 1 file has no setup, and then means what it always meant.
  const setup = data.schema_version === 1 ? [] : await bindSetup(data.setup, repoTopLevel, env, revision);
  const loaded: LoadedWorkflow = {
    workflow: { source: 'file', steps: data.steps, file_path_in_repo: inRepo, file_digest: sha256Digest(text), ...(setup.length === 0 ? {} : { setup }) },
    verifier: { builtin: ['git_diff_check'], command: data.verifier },
    protectedPaths: [...data.protected_paths, ...(inRepo ? [inRepo] : [])],
    foundInRepository: null,
    repositoryFile: null,
  };
  return { loaded, data: { text, file: data } };
}

/**
 * The workflow the New Fork editor starts from, as `resolveWorkflow` would choose it: the named
 * file's (a version 1 file as version 2 without setup, which means the same), else the repository's
 * `.citadel/workflow.json` (`found_in_repository`), else the built-in one. A repository path that
 * names no repository yet finds nothing: the preview reports it at its field. Nothing is bound yet.
 */
export async function workflowDocument(
  file: string | null,
  repo: string | null = null,
): Promise<{ source: 'builtin' | 'file'; document: InlineWorkflow; found_in_repository: string | null }> {
  const named = file === null || file.trim() === '' ? null : file;
  // Only a full path: a relative one would name a folder of Mission Control's own working directory.
  const root = named !== null || repo === null || !path.isAbsolute(repo.trim()) ? null : await repositoryInfo(repo.trim()).then((info) => info.root, () => null);
  const found = root === null ? null : await repositoryWorkflow(root);
  const chosen = named ?? found;
  if (chosen === null) {
    return { source: 'builtin', document: { schema_version: 2, steps: [...BUILTIN_STEPS], verifier: null, protected_paths: [], setup: [] }, found_in_repository: null };
  }
  const { data } = await readWorkflowFile(chosen);
  const setup = data.schema_version === 1 ? [] : data.setup;
  return {
    source: 'file',
    document: { schema_version: 2, steps: data.steps, verifier: data.verifier, protected_paths: data.protected_paths, setup },
    found_in_repository: found === null ? null : REPOSITORY_WORKFLOW_PATH,
  };
}

async function readWorkflowFile(file: string): Promise<{ text: string; data: WorkflowFile }> {
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
  return { text: read.text, data: parsed.data };
}

/**
 * A follow-up's setup bound again against its base (issue 32): the parent branch's result, whose
 * settings files an agent wrote, is what its worktrees get, not HEAD (a workflow named now is bound
 * there already: `revision`; the parent's frozen one was bound at the parent's base). Registries
 * come from the operator's configuration now, as for any new fork.
 */
export function bindSetupAt(steps: readonly SetupStep[], repoTopLevel: string, env: Readonly<Record<string, string | undefined>>, revision: string): Promise<SetupStep[]> {
  return bindSetup(
    steps.map(({ id, command, args, timeout_seconds, network }) => ({ id, command, args, timeout_seconds, network })),
    repoTopLevel,
    env,
    revision,
  );
}

/**
 * Setup steps as the contract binds them, each `registries` step with the hosts the operator's
 * configuration of its toolchain names now (main/setup/registries); refused when the repository's
 * committed settings (what every worktree gets) name another registry: `.npmrc` for every npm step,
 * each toolchain's own files for a `registries` step.
 */
async function bindSetup(steps: readonly SetupStepFile[], repoTopLevel: string, env: Readonly<Record<string, string | undefined>>, revision = 'HEAD'): Promise<SetupStep[]> {
  const npm = npmConfigOnce(env);
  const committed = committedFiles(repoTopLevel, revision);
  // npm reads it for every step (its cache is one); pnpm, Yarn 1.x and bun for a step that fetches.
  const npmrcRead = steps.some((step) => usesNpmConfig(step.command) || (step.network === 'registries' && readsNpmrc(step)));
  if (npmrcRead) assertProjectRegistries((await committed('.npmrc', MAX_NPMRC_BYTES)) ?? '', await npm());
  const bound: SetupStep[] = [];
  for (const step of steps) {
    const hosts = step.network === 'registries' ? [...(await bindRegistries(step, { env, npm }, committed)).hosts] : [];
    bound.push({ id: step.id, command: step.command, args: step.args, timeout_seconds: step.timeout_seconds, network: step.network, registry_hosts: hosts });
  }
  return bound;
}
