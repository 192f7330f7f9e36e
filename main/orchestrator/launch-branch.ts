import path from 'node:path';
import { z } from 'zod';
import { digestOf, sha256Digest } from '../../shared/digest';
import { CitadelError, isCitadelError } from '../../shared/errors';
import type { RuntimeProfile } from '../../shared/executors/runtime-profile';
import { ReceiptContainmentSchema, type ReceiptContainment } from '../../shared/fork/containment-facts';
import { budgetTokensOf, type Contract } from '../../shared/fork/contract';
import { containmentDigest, type ContainmentTemplate } from '../../shared/sandbox/containment-policy';
import type { BranchRecord } from '../../shared/fork/fork-record';
import { PortBlockSchema, type PortBlock } from '../../shared/fork/receipts';
import { FailureCodeSchema, type FailureCode } from '../../shared/runtime/telemetry';
import { childEnvironment, withCitadelPort } from '../runtimes/env-allowlist';
import { launchSupervised, type StandbySupervisor } from '../runtimes/process-control/launch-supervised';
import { adapterFor } from '../runtimes/registry';
import { resolveExecutable } from '../runtimes/resolve-executable';
import type { RunStatus } from '../runtimes/supervisor/run-status';
import { writePrivateFile, writePrivateJson } from '../store/atomic-file';
import { crashPoint } from '../store/crash-points';
import { attemptFiles, attemptKey } from '../store/fork-layout';
import type { Journal } from '../store/journal';
import { CHECKPOINT, readStoredJson } from '../store/read-stored-json';
import { containedCommand } from '../sandbox/contained-command';
import type { EgressBridgeSpec } from '../sandbox/egress/egress-bridge-spec';
import type { GatewaySpec } from '../sandbox/gateway/gateway-spec';
import { writeLaunchFiles } from '../sandbox/generated-etc';
import type { SandboxCommand, SandboxLauncher } from '../sandbox/sandbox-backend';
import type { OrchestratorContext } from '../host/context';
import { attemptSandboxDirs, containmentOf, runtimeLaunchPolicy, sandboxLauncher, type BranchLaunchInput } from './branch-containment';
import { prepareGatewayLaunch } from './gateway-launch';
import { instructionArtifact } from './instruction-artifact';
import { leasePortBlock, type PortHolder, type PortLease } from '../workspace/port-blocks';

/** What was launched, kept privately beside the run for the receipt (no paths, no values). */
export const LaunchFactsSchema = z.strictObject({
  argv_digest: z.string(),
  instruction_digest: z.string(),
  env_names: z.array(z.string()),
  /** Set when the runtime could not be started at all. */
  failure_code: FailureCodeSchema.nullable(),
  /** The containment the run was launched under (absent in facts written before containment). */
  containment: ReceiptContainmentSchema.optional(),
  /** The port block the runtime got as CITADEL_PORT (absent in facts written before ports). */
  ports: PortBlockSchema.optional(),
});
export type LaunchFacts = z.infer<typeof LaunchFactsSchema>;

const KILL_GRACE_MS = 5000;

/** What a branch is asked to do: the fork's objective, and for a follow-up the objective it continues (context). */
export interface BranchTask {
  readonly objective: string;
  readonly parentObjective: string | null;
}

export type LaunchOutcome = { kind: 'running' | 'exited'; status: RunStatus } | { kind: 'not_started'; failure: FailureCode } | { kind: 'in_doubt' };

/**
 * Launches one branch's runtime under a detached supervisor: a nonrepeatable effect, journaled
 * with an intent before the spawn and a result after it (decisions D11). A `standby` supervisor
 * (already started, see startStandbySupervisor) is handed the launch instead of one started now:
 * until that hand-over, after the intent, it has started nothing, so the effect's bounds are the same.
 */
export async function launchBranch(
  ctx: OrchestratorContext,
  journal: Journal,
  forkId: string,
  branch: BranchRecord,
  profile: RuntimeProfile,
  contract: Contract,
  task: BranchTask,
  worktree: string,
  standby?: StandbySupervisor,
): Promise<LaunchOutcome> {
  const key = attemptKey(branch.branch_id, branch.attempt);
  const files = attemptFiles(ctx.root, forkId, branch.branch_id, branch.attempt);
  await ctx.root.ensureDir(files.dir);
  const adapter = adapterFor(profile.runtime, ctx.adapters);
  const containment = containmentOf(contract);
  // The same profile and containment always give the same canonical argv (decisions D5).
  const invocation = adapter.invocation(profile, containment.mode);
  const instruction = instructionArtifact(task.objective, contract.workflow, contract.policy.protected_paths, task.parentObjective);
  await writePrivateFile(files.instruction, instruction);
  // Probed before the launch intent: a sandbox gone since the fork was created stops the drive
  // (fail closed) and leaves the branch pending, to launch once the backend works again.
  const template = containment.mode === 'contained' ? containment.runtimes[branch.branch_id] : undefined;
  if (containment.mode === 'contained' && template === undefined) {
    throw new CitadelError('FORK_RECORD_INVALID', `the contract has no containment for ${branch.branch_id}`, { details: { branch_id: branch.branch_id } });
  }
  const launcher = template === undefined ? null : await sandboxLauncher(ctx);
  // Leased once the sandbox is known to work, before the launch intent: a lease is no effect on the
  // target, and the same attempt gets the same block again (PORTS_UNAVAILABLE leaves nothing started).
  const ports = await branchPortBlock(ctx, { fork_id: forkId, branch_id: branch.branch_id, attempt: branch.attempt });
  const { env, presentNames } = withCitadelPort(childEnvironment(ctx.env, adapter), ports.first);
  const receiptContainment: ReceiptContainment =
    template === undefined || launcher === null
      ? { mode: 'runtime-only' }
      : { mode: 'contained', backend: launcher.backend, backend_version: launcher.version, policy_digest: containmentDigest(template) };
  const facts: LaunchFacts = {
    argv_digest: digestOf([invocation.executable, ...invocation.args]),
    instruction_digest: sha256Digest(instruction),
    env_names: presentNames,
    failure_code: null,
    containment: receiptContainment,
    ports,
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
  const command = { command: resolved.command, args: [...resolved.argsPrefix, ...invocation.args] };
  let launch: PreparedLaunch;
  try {
    launch =
      template === undefined || launcher === null
        ? { ...command, env, egress_bridge: null, gateway: null, fd_files: [] }
        : await containedLaunch(ctx, launcher, template, { forkId, branchId: branch.branch_id, attemptDir: files.dir, worktree, adapter, resolved, childEnv: env, command, profile, contract });
  } catch (error) {
    // The credential went away since the fork was created (a logout, an unset key): nothing is started.
    if (!isCitadelError(error) || error.code !== 'RUNTIME_AUTH_MISSING') throw error;
    await writePrivateJson(files.launchFacts, { ...facts, failure_code: 'RUNTIME_AUTH_FAILED' });
    await journal.result('runtime.launch', key, 'failed', { failure_code: 'RUNTIME_AUTH_FAILED' });
    return { kind: 'not_started', failure: 'RUNTIME_AUTH_FAILED' };
  }
  let status: RunStatus;
  try {
    status = await launchSupervised(
      {
        command: launch.command,
        args: launch.args,
        cwd: worktree,
        env: launch.env,
        egress_bridge: launch.egress_bridge,
        gateway: launch.gateway,
        extra_fd_files: launch.fd_files,
        stdin_file: files.instruction,
        stdout_file: files.stdout,
        stderr_file: files.stderr,
        status_file: files.status,
        timeout_ms: contract.budget.max_duration_seconds * 1000,
        kill_grace_ms: KILL_GRACE_MS,
      },
      ctx.supervisorScript,
      ctx.nodeExecPath,
      standby,
    );
  } catch (error) {
    if (isCitadelError(error) && error.code === 'SUPERVISOR_START_UNCERTAIN') return { kind: 'in_doubt' };
    throw error;
  }
  crashPoint('runtime.launch:after-spawn');
  await journal.result('runtime.launch', key, 'done', { supervisor_pid: status.supervisor_pid });
  const run = { started_at: status.started_at, budget_seconds: contract.budget.max_duration_seconds, streams_output: adapter.liveActivity !== undefined };
  ctx.events({ type: 'runtime', fork_id: forkId, branch_id: branch.branch_id, phase: 'launched', run });
  return { kind: status.phase === 'running' ? 'running' : 'exited', status };
}

interface PreparedLaunch {
  readonly command: string;
  readonly args: string[];
  readonly env: Record<string, string>;
  readonly egress_bridge: EgressBridgeSpec | null;
  /** The provider gateway the supervisor serves instead of a plain bridge (issue 28). */
  readonly gateway: GatewaySpec | null;
  /** The backend's fd files (its seccomp program), opened by the supervisor as fds 3, 4, …. */
  readonly fd_files: string[];
}

/**
 * The runtime's command as it runs contained: the template resolved to this machine, wrapped by
 * the backend (and the egress bridge when the runtime has a provider), its generated files written
 * into the attempt's launch directory. The supervisor spawns the backend with exactly the policy's
 * environment, which it passes on: no value of it is in the argv (readable by every local user).
 */
async function containedLaunch(
  ctx: OrchestratorContext,
  launcher: SandboxLauncher,
  template: ContainmentTemplate,
  input: Omit<BranchLaunchInput, 'gateway'> & { readonly command: SandboxCommand; readonly profile: RuntimeProfile; readonly contract: Contract },
): Promise<PreparedLaunch> {
  const gateway =
    template.egress.kind === 'gateway'
      ? await prepareGatewayLaunch(ctx, { rule: template.egress, adapter: input.adapter, profile: input.profile, attemptDir: input.attemptDir, budgetTokens: budgetTokensOf(input.contract) })
      : null;
  const policy = await runtimeLaunchPolicy(ctx, template, { ...input, worktree: path.resolve(input.worktree), gateway: gateway?.inside ?? null });
  const launchDir = attemptSandboxDirs(input.attemptDir).launch;
  const contained = containedCommand(launcher, policy, input.command, { launchDir, innerBridgeScript: ctx.innerBridgeScript, nodeExecPath: ctx.nodeExecPath });
  await writeLaunchFiles(contained.files);
  // The gateway takes the bridge's place: the same socket, served with the credential and the witness.
  const bridge = contained.bridge;
  if (gateway !== null && bridge !== null) {
    return { command: contained.command, args: contained.args, env: contained.env, egress_bridge: null, gateway: gateway.spec(bridge.socket_path), fd_files: contained.fdFiles };
  }
  return { command: contained.command, args: contained.args, env: contained.env, egress_bridge: bridge, gateway: null, fd_files: contained.fdFiles };
}

/**
 * The port block of one branch attempt (issue 13): leased when it launches, the same one for its
 * verifier, given back when it is collected (collect-branch.ts) or its fork cleaned. A lease whose
 * fork is gone, or whose attempt is neither pending nor running any more (ended, blocked, retried
 * as a new attempt), is stale and taken back. A run whose supervisor died is still to be collected
 * (its verifier uses the block): its lease stands until then, or until STOP or clean ends it.
 */
export function branchPortBlock(ctx: OrchestratorContext, holder: PortHolder): Promise<PortBlock> {
  return leasePortBlock(ctx.root.dir, holder, { isStale: (lease) => leaseEnded(ctx, lease), now: ctx.now });
}

async function leaseEnded(ctx: OrchestratorContext, lease: PortLease): Promise<boolean> {
  let record;
  try {
    record = await ctx.store.readRecord(lease.fork_id);
  } catch (error) {
    // A record that cannot be read keeps its lease (clean gives it back): only a fork that is gone frees it.
    if (isCitadelError(error) && error.code === 'FORK_NOT_FOUND') return true;
    return false;
  }
  const branch = record.branches.find((b) => b.branch_id === lease.branch_id);
  return branch === undefined || branch.attempt !== lease.attempt || (branch.state !== 'pending' && branch.state !== 'running');
}

export async function readLaunchFacts(file: string): Promise<LaunchFacts | null> {
  return readStoredJson(file, LaunchFactsSchema, CHECKPOINT);
}
