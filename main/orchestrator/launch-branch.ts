import { z } from 'zod';
import { digestOf, sha256Digest } from '../../shared/digest';
import { isCitadelError } from '../../shared/errors';
import type { RuntimeProfile } from '../../shared/executors/runtime-profile';
import type { Contract } from '../../shared/fork/contract';
import type { BranchRecord } from '../../shared/fork/fork-record';
import { FailureCodeSchema, type FailureCode } from '../../shared/runtime/telemetry';
import { childEnvironment } from '../runtimes/env-allowlist';
import { launchSupervised } from '../runtimes/process-control/launch-supervised';
import { adapterFor } from '../runtimes/registry';
import { resolveExecutable } from '../runtimes/resolve-executable';
import type { RunStatus } from '../runtimes/supervisor/run-status';
import { writePrivateFile, writePrivateJson } from '../store/atomic-file';
import { crashPoint } from '../store/crash-points';
import { attemptFiles, attemptKey } from '../store/fork-layout';
import type { Journal } from '../store/journal';
import { CHECKPOINT, readStoredJson } from '../store/read-stored-json';
import type { OrchestratorContext } from '../host/context';
import { instructionArtifact } from './instruction-artifact';

/** What was launched, kept privately beside the run for the receipt (no paths, no values). */
export const LaunchFactsSchema = z.strictObject({
  argv_digest: z.string(),
  instruction_digest: z.string(),
  env_names: z.array(z.string()),
  /** Set when the runtime could not be started at all. */
  failure_code: FailureCodeSchema.nullable(),
});
export type LaunchFacts = z.infer<typeof LaunchFactsSchema>;

const KILL_GRACE_MS = 5000;

export type LaunchOutcome = { kind: 'running' | 'exited'; status: RunStatus } | { kind: 'not_started'; failure: FailureCode } | { kind: 'in_doubt' };

/**
 * Launches one branch's runtime under a detached supervisor: a nonrepeatable effect, journaled
 * with an intent before the spawn and a result after it (decisions D11).
 */
export async function launchBranch(
  ctx: OrchestratorContext,
  journal: Journal,
  forkId: string,
  branch: BranchRecord,
  profile: RuntimeProfile,
  contract: Contract,
  objective: string,
  worktree: string,
): Promise<LaunchOutcome> {
  const key = attemptKey(branch.branch_id, branch.attempt);
  const files = attemptFiles(ctx.root, forkId, branch.branch_id, branch.attempt);
  await ctx.root.ensureDir(files.dir);
  const adapter = adapterFor(profile.runtime, ctx.adapters);
  const invocation = adapter.invocation(profile);
  const instruction = instructionArtifact(objective, contract.workflow, contract.policy.protected_paths);
  const { env, presentNames } = childEnvironment(ctx.env, adapter);
  await writePrivateFile(files.instruction, instruction);
  const facts: LaunchFacts = {
    argv_digest: digestOf([invocation.executable, ...invocation.args]),
    instruction_digest: sha256Digest(instruction),
    env_names: presentNames,
    failure_code: null,
  };

  await journal.intent('runtime.launch', key);
  let resolved;
  try {
    resolved = await resolveExecutable(adapter.executable, adapter.vendorPackage, { env, nodeExecPath: ctx.nodeExecPath });
  } catch (error) {
    if (!isCitadelError(error) || (error.code !== 'RUNTIME_NOT_FOUND' && error.code !== 'RUNTIME_SHIM_UNSUPPORTED')) throw error;
    await writePrivateJson(files.launchFacts, { ...facts, failure_code: error.code });
    await journal.result('runtime.launch', key, 'failed', { failure_code: error.code });
    return { kind: 'not_started', failure: error.code };
  }
  await writePrivateJson(files.launchFacts, facts);
  let status: RunStatus;
  try {
    status = await launchSupervised(
      {
        command: resolved.command,
        args: [...resolved.argsPrefix, ...invocation.args],
        cwd: worktree,
        env,
        stdin_file: files.instruction,
        stdout_file: files.stdout,
        stderr_file: files.stderr,
        status_file: files.status,
        timeout_ms: contract.budget.max_duration_seconds * 1000,
        kill_grace_ms: KILL_GRACE_MS,
      },
      ctx.supervisorScript,
      ctx.nodeExecPath,
    );
  } catch (error) {
    if (isCitadelError(error) && error.code === 'SUPERVISOR_START_UNCERTAIN') return { kind: 'in_doubt' };
    throw error;
  }
  crashPoint('runtime.launch:after-spawn');
  await journal.result('runtime.launch', key, 'done', { supervisor_pid: status.supervisor_pid });
  ctx.events({ type: 'runtime', fork_id: forkId, branch_id: branch.branch_id, phase: 'launched' });
  return { kind: status.phase === 'running' ? 'running' : 'exited', status };
}

export async function readLaunchFacts(file: string): Promise<LaunchFacts | null> {
  return readStoredJson(file, LaunchFactsSchema, CHECKPOINT);
}
