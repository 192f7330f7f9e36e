import path from 'node:path';
import { CitadelError, type Violation } from '../../shared/errors';
import type { FieldCheck, FieldProblem, StartPreview } from '../../shared/fork/start-preview';
import type { PreviewForkRequest } from '../../shared/ipc/contract';
import { repositoryInfo, type RepositoryInfo } from '../git/repository';
import type { OrchestratorContext } from '../host/context';
import { resolveWorktreeIncludes } from '../workspace/worktree-include';
import { targetRepositoryDigest } from '../landing/target-identity';
import { validObjective } from './create-fork';
import { includeConfirmationOf } from './include-confirmation';
import { previewFork } from './executor-actions';
import { resolveWorkflow } from './load-workflow';

/**
 * The New Fork preview: each field checked with the same functions `startFork` uses, every
 * problem reported at its field in plain words (never thrown), so the form can show them all at
 * once, before anything is written. It reads the repository and files; it writes nothing.
 */
export async function previewStart(ctx: Pick<OrchestratorContext, 'adapters' | 'env' | 'root'>, request: PreviewForkRequest): Promise<StartPreview> {
  const fields = { objective: check(), repo: check(), executors: check(), workflow_file: check() };
  await attempt(fields.objective, () => validObjective(request.objective));

  const repo = await checkRepository(request.repo, ctx.env, fields.repo);
  const worktreeInclude =
    repo === null ? null : await attempt(fields.repo, async () => includeConfirmationOf(ctx, await targetRepositoryDigest(repo.root), (await resolveWorktreeIncludes(repo.root))?.entries ?? []));

  const executors = await attempt(fields.executors, () => previewFork(ctx, request.executors, request.containment === 'runtime-only' ? 'runtime-only' : 'contained'));

  const file = request.workflow_file === null || request.workflow_file.trim() === '' ? undefined : request.workflow_file;
  const inline = request.workflow ?? undefined;
  let workflow: StartPreview['workflow'] = null;
  if ((file !== undefined || inline !== undefined) && repo === null) {
    fields.workflow_file.warnings.push('Checked once the repository path is valid (a workflow file inside the repository is protected too).');
  } else if (repo !== null) {
    const loaded = await attempt(fields.workflow_file, () => resolveWorkflow({ file, inline }, repo.root, ctx.env));
    if (loaded !== null) {
      workflow = {
        source: loaded.workflow.source,
        steps: loaded.workflow.steps.map((s) => s.id),
        setup: (loaded.workflow.setup ?? []).map((s) => ({ id: s.id, argv: [s.command, ...s.args], network: s.network })),
        verifier: loaded.verifier.command === null ? null : [loaded.verifier.command.command, ...loaded.verifier.command.args],
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
  };
}

async function checkRepository(given: string, env: Readonly<Record<string, string | undefined>>, field: FieldCheck): Promise<RepositoryInfo | null> {
  const trimmed = given.trim();
  const refuse = (message: string): null => {
    field.problems.push({ code: 'REPOSITORY_INVALID', message });
    return null;
  };
  if (trimmed === '') return refuse('Enter the path of the git repository the agents work on.');
  // The form is not a shell: `~` would name a folder called "~" in the current directory.
  if (trimmed === '~' || trimmed.startsWith('~/')) {
    const home = env.HOME;
    return refuse(`"~" is not expanded here; write the full path${home === undefined ? '' : `, for example ${path.join(home, trimmed.slice(2))}`}.`);
  }
  if (!path.isAbsolute(trimmed)) return refuse('Write the full path of the repository (it starts with /).');
  const repo = await attempt(field, () => repositoryInfo(trimmed));
  if (repo === null) return null;
  if (repo.root !== path.resolve(trimmed)) field.warnings.push(`This folder is inside the repository at ${repo.root}; the fork works on that whole repository.`);
  if (repo.branch === null) field.warnings.push(`HEAD is detached at ${repo.head.slice(0, 12)}: the fork can run, but landing needs a checked-out branch.`);
  if (repo.dirty) {
    field.warnings.push(`The repository has uncommitted changes; they are not part of the fork, which starts from HEAD ${repo.head.slice(0, 12)}${repo.branch === null ? '' : ` on ${repo.branch}`}.`);
  }
  return repo;
}

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
