import type { z } from 'zod';
import type { ForkRecord } from '../../shared/fork/fork-record';
import type { ExecutorChoiceSchema } from '../../shared/ipc/contract';
import { loadExecutorFile } from '../executors/load-executor-file';
import type { OrchestratorContext } from '../host/context';
import { createFork, type CreatedFork, type CreateForkInput, type ExecutorInput } from './create-fork';
import { driveFork } from './drive-fork';
import { resolveExecutorChoice } from './executor-choice';
import { resolveBranch as recordResolution, type Resolution } from './resolve-branch';
import { resumeFork as continueRecorded } from './resume-fork';

/** Runs the rest of a fork's run without its caller waiting (Mission Control's background drives). */
export type RunInBackground = (forkId: string, rest: () => Promise<unknown>) => void;

/**
 * How long an action that launches branches keeps its caller: until every runtime has ended and
 * its evidence is collected ('wait'), until every pending branch is launched ('detach'), or until
 * then with the rest handed to the host ({ background }); a start with a background runner hands
 * on everything after the fork record (see startFork).
 */
export type Collect = 'wait' | 'detach' | { readonly background: RunInBackground };

/**
 * Where a fork's executors come from: as given (createFork checks them), an executor file (the
 * CLI's --executors), or the New Fork form's choice, checked first exactly as its preview is.
 */
export type ExecutorSource =
  | ExecutorInput
  | { readonly kind: 'executor-file'; readonly file: string }
  | { readonly kind: 'choice'; readonly choice: z.infer<typeof ExecutorChoiceSchema> };

export interface StartRequest extends Omit<CreateForkInput, 'executors'> {
  /** Absent only for a follow-up (`from`), which runs its parent's executor set. */
  readonly executors?: ExecutorSource | undefined;
}

export interface StartOptions {
  readonly collect: Collect;
  /** Called once the fork is recorded, before anything is launched. */
  readonly onCreated?: (created: CreatedFork) => void;
}

/**
 * `citadel fork start` and the New Fork form: freeze the request into a fork, then launch it. With
 * a background runner the answer is the fork as created: its worktrees, setup (an `npm ci` takes
 * minutes) and launches run in the background drive, each step streamed as an event and kept in
 * the journal exactly as a waiting start keeps them, so a crash mid-setup resumes as it always did.
 */
export async function startFork(ctx: OrchestratorContext, request: StartRequest, options: StartOptions): Promise<CreatedFork> {
  const created = await createFork(ctx, { ...request, executors: request.executors === undefined ? undefined : await executorInput(request.executors) });
  options.onCreated?.(created);
  const forkId = created.record.fork_id;
  if (typeof options.collect === 'object') {
    options.collect.background(forkId, () => driveFork(ctx, forkId, 'all'));
    return created;
  }
  const record = await launch(ctx, forkId, options.collect, () => driveFork(ctx, forkId, 'all'));
  return { ...created, record };
}

/** Continues exactly the recorded request, then settles a landing a crash left in doubt. */
export function resumeFork(ctx: OrchestratorContext, forkId: string, collect: Exclude<Collect, 'detach'>): Promise<ForkRecord> {
  return launch(ctx, forkId, collect, () => continueRecorded(ctx, forkId));
}

/** The operator's decision for a blocked branch; a retry's fresh attempt runs at once. */
export async function resolveBranch(ctx: OrchestratorContext, forkId: string, branchId: string, resolution: Resolution, collect: Exclude<Collect, 'detach'>): Promise<ForkRecord> {
  const resolved = await recordResolution(ctx, forkId, branchId, resolution);
  return resolution === 'retry' ? launch(ctx, forkId, collect, () => driveFork(ctx, forkId, 'all')) : resolved;
}

/**
 * With a background runner, returns once every pending branch is launched and hands `rest` on.
 * The request before it (a fork created, a retry decided) is already recorded, so a launch that
 * fails is handed on like any background failure (`drive_failed`; resume continues it) and the
 * answer is the fork as recorded, not a refusal of what was done.
 */
async function launch(ctx: OrchestratorContext, forkId: string, collect: Collect, rest: () => Promise<ForkRecord>): Promise<ForkRecord> {
  if (collect === 'wait') return rest();
  if (collect === 'detach') return driveFork(ctx, forkId, 'none');
  try {
    const launched = await driveFork(ctx, forkId, 'none');
    collect.background(forkId, rest);
    return launched;
  } catch (error) {
    collect.background(forkId, () => Promise.reject(error));
    return ctx.store.readRecord(forkId);
  }
}

async function executorInput(source: ExecutorSource): Promise<ExecutorInput> {
  if (source.kind === 'executor-file') return { kind: 'executors', profiles: (await loadExecutorFile(source.file)).executors };
  if (source.kind === 'choice') return resolveExecutorChoice(source.choice).input;
  return source;
}
