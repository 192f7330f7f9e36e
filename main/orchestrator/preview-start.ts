import path from 'node:path';
import { CitadelError, type Violation } from '../../shared/errors';
import type { FieldCheck, FieldProblem, StartPreview } from '../../shared/fork/start-preview';
import type { PreviewForkRequest } from '../../shared/ipc/contract';
import { repositoryInfo, type RepositoryInfo } from '../git/repository';
import type { OrchestratorContext } from '../host/context';
import { resolveWorktreeIncludes } from '../workspace/worktree-include';
import { targetRepositoryDigest } from '../landing/target-identity';
import { adapterFor } from '../runtimes/registry';
import { assertRuntimeOnlyOffered } from './branch-containment';
import { checkBudgetNumber, type BudgetNumber } from './budget-numbers';
import { parentWorkflow, validObjective } from './create-fork';
import { followUpParent, followUpWorkflow } from './follow-up-parent';
import { includeConfirmationOf } from './include-confirmation';
import { previewFork } from './executor-actions';
import { resolveWorkflow } from './load-workflow';
import { workflowConfirmationOf } from './workflow-confirmation';

/**
 * The New Fork preview: each field checked with the same functions `startFork` uses, every
 * problem reported at its field in plain words (never thrown), so the form can show them all at
 * once, before anything is written. It reads the repository and files; it writes nothing. A
 * follow-up (`from`) is checked as its start checks it (its parent, at the repository field) and
 * previewed from what it would start from: the parent branch's result, and without a workflow
 * named, the parent's frozen workflow.
 */
export async function previewStart(ctx: OrchestratorContext, request: PreviewForkRequest): Promise<StartPreview> {
  const fields = {
    objective: check(),
    repo: check(),
    executors: check(),
    workflow_file: check(),
    budget_seconds: check(),
    max_attempts: check(),
    budget_tokens: check(),
  };
  await attempt(fields.objective, () => validObjective(request.objective));
  for (const number of BUDGET_NUMBERS) await attempt(fields[number], () => checkBudgetNumber(number, request[number] ?? undefined));

  const from = request.from ?? null;
  const repo = await checkRepository(request.repo, ctx.env, fields.repo, from !== null);
  const parent = from === null || repo === null ? null : await attempt(fields.repo, () => followUpParent(ctx, from, request.repo.trim()));
  const worktreeInclude =
    repo === null ? null : await attempt(fields.repo, async () => includeConfirmationOf(ctx, await targetRepositoryDigest(repo.root), (await resolveWorktreeIncludes(repo.root, parent?.lineage.parent_result_commit))?.entries ?? []));

  const runtimeOnly = request.containment === 'runtime-only';
  const executors = await attempt(fields.executors, () => previewFork(ctx, request.executors, runtimeOnly ? 'runtime-only' : 'contained'));
  // Start refuses the same way (contractContainment); the argv stays shown beside the problem.
  if (runtimeOnly && executors !== null) await attempt(fields.executors, () => assertRuntimeOnlyOffered(executors.executors.profiles.map((p) => adapterFor(p.runtime, ctx.adapters))));

  const file = request.workflow_file === null || request.workflow_file.trim() === '' ? undefined : request.workflow_file.trim();
  const inline = request.workflow ?? undefined;
  const pathProblem = file === undefined ? null : notAFullPath(file, ctx.env);
  let workflow: StartPreview['workflow'] = null;
  const runsParentWorkflow = parent !== null && file === undefined && inline === undefined;
  // A follow-up whose parent was refused (said at the repository field) has no workflow to show unless one is named.
  const nothingToLoad = from !== null && parent === null && file === undefined && inline === undefined;
  if (pathProblem !== null) {
    fields.workflow_file.problems.push({ code: 'WORKFLOW_FILE_UNREADABLE', message: pathProblem });
  } else if ((file !== undefined || inline !== undefined) && repo === null) {
    fields.workflow_file.warnings.push('Checked once the repository path is valid (a workflow file inside the repository is protected too).');
  } else if (repo !== null && !nothingToLoad) {
    const loaded = runsParentWorkflow
      ? parentWorkflow(parent.contract)
      : await attempt(fields.workflow_file, () => resolveWorkflow({ file, inline }, repo.root, ctx.env, parent?.lineage.parent_result_commit).catch((error: unknown) => plainUnreadable(error, file)));
    // What the start checks of a follow-up's workflow against the parent's result (its setup, its protected paths).
    if (loaded !== null && parent !== null) await attempt(fields.workflow_file, () => followUpWorkflow(loaded, repo.root, ctx.env, parent.lineage));
    if (loaded?.verifier.command === null) {
      fields.workflow_file.warnings.push(
        'No verifier command: each branch is checked only by git diff --check (whitespace errors), so nothing tests whether the objective was met. A workflow file with a verifier (for example npm test) has every branch tested.',
      );
    }
    if (loaded !== null) {
      workflow = {
        source: loaded.workflow.source,
        found_in_repository: loaded.foundInRepository,
        steps: loaded.workflow.steps.map((s) => s.id),
        setup: (loaded.workflow.setup ?? []).map((s) => ({ id: s.id, argv: [s.command, ...s.args], network: s.network })),
        verifier: loaded.verifier.command === null ? null : [loaded.verifier.command.command, ...loaded.verifier.command.args],
        repository_file: await attempt(fields.workflow_file, async () => workflowConfirmationOf(ctx, await targetRepositoryDigest(repo.root), loaded.repositoryFile)),
      };
    }
  }

  const ready = Object.values(fields).every((f) => f.problems.length === 0);
  return {
    ready,
    fields,
    schema_version: executors?.schema_version ?? null,
    executors: executors?.executors ?? null,
    repository: repo === null ? null : { root: repo.root, head: repo.head, branch: repo.branch, dirty: repo.dirty, worktree_include: worktreeInclude },
    workflow,
    follow_up: parent === null ? null : { from: { fork_id: parent.lineage.parent_fork_id, branch_id: parent.lineage.parent_branch_id }, base_revision: parent.lineage.parent_result_commit, parent_workflow: runsParentWorkflow },
  };
}

async function checkRepository(given: string, env: Readonly<Record<string, string | undefined>>, field: FieldCheck, followUp: boolean): Promise<RepositoryInfo | null> {
  const trimmed = given.trim();
  const refuse = (message: string): null => {
    field.problems.push({ code: 'REPOSITORY_INVALID', message });
    return null;
  };
  if (trimmed === '') return refuse('Enter the path of the git repository the agents work on.');
  const problem = notAFullPath(trimmed, env, 'the repository');
  if (problem !== null) return refuse(problem);
  const repo = await attempt(field, () => repositoryInfo(trimmed));
  if (repo === null) return null;
  if (repo.root !== path.resolve(trimmed)) field.warnings.push(`This folder is inside the repository at ${repo.root}; the fork works on that whole repository.`);
  if (repo.branch === null) field.warnings.push(`HEAD is detached at ${repo.head.slice(0, 12)}: the fork can run, but landing needs a checked-out branch.`);
  if (repo.dirty) {
    const start = followUp ? "the result of the branch it continues" : `HEAD ${repo.head.slice(0, 12)}${repo.branch === null ? '' : ` on ${repo.branch}`}`;
    field.warnings.push(`The repository has uncommitted changes; they are not part of the fork, which starts from ${start}.`);
  }
  return repo;
}

/**
 * Why a path typed into the form names no file as the operator meant it, or null. The form is not
 * a shell: `~` would name a folder called "~" in the current directory, and a relative path that of
 * the Mission Control process.
 */
function notAFullPath(given: string, env: Readonly<Record<string, string | undefined>>, what = 'the file'): string | null {
  if (given === '~' || given.startsWith('~/')) {
    const home = env.HOME;
    return `"~" is not expanded here; write the full path${home === undefined ? '' : `, for example ${path.join(home, given.slice(2))}`}.`;
  }
  return path.isAbsolute(given) ? null : `Write the full path of ${what} (it starts with /).`;
}

/** A workflow file that is not there, said as such rather than as the system's error code. */
function plainUnreadable(error: unknown, file: string | undefined): never {
  if (file !== undefined && error instanceof CitadelError && error.code === 'WORKFLOW_FILE_UNREADABLE' && error.details?.reason === 'ENOENT') {
    throw new CitadelError('WORKFLOW_FILE_UNREADABLE', `There is no file at ${file}.`);
  }
  throw error;
}

const BUDGET_NUMBERS: readonly BudgetNumber[] = ['budget_seconds', 'max_attempts', 'budget_tokens'];

const check = (): FieldCheck => ({ problems: [], warnings: [] });

/** Runs one of start's checks; a typed refusal becomes the field's problems (null), anything else is thrown. */
async function attempt<T>(field: { problems: FieldProblem[] }, run: () => T | Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    field.problems.push(...problemsOf(error));
    return null;
  }
}

/** A refusal as the operator should read it: one line per violation, each naming where it is. */
function problemsOf(error: unknown): FieldProblem[] {
  if (!(error instanceof CitadelError)) throw error;
  const violations = error.violations ?? [];
  if (violations.length === 0) return [{ code: error.code, message: sentence(error.message) }];
  return violations.map((v) => ({ code: error.code, message: `${where(v)}${sentence(v.message)}` }));
}

/** `$.executors.profiles[1].model` reads as "Profile 2, model: ". */
function where(v: Violation): string {
  const profile = /^\$\.executors\.profiles\[(\d+)\]\.?(.*)$/.exec(v.path);
  if (profile !== null) return `Profile ${Number(profile[1]) + 1}${profile[2] === '' ? '' : `, ${profile[2]}`}: `;
  return v.path === '$' || v.path === '' ? '' : `${v.path.replace(/^\$\.?/, '')}: `;
}

const sentence = (text: string): string => (text === '' ? text : `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`);
