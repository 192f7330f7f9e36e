import os from 'node:os';
import path from 'node:path';
import { digestOf } from '../../shared/digest';
import type { ReceiptContainment } from '../../shared/fork/containment-facts';
import type { Contract } from '../../shared/fork/contract';
import type { BranchRecord } from '../../shared/fork/fork-record';
import type { SetupEvidence } from '../../shared/fork/receipts';
import type { SetupFailure, SetupStep } from '../../shared/fork/workflow';
import { parseContainmentPolicy, type ContainmentTemplate } from '../../shared/sandbox/containment-policy';
import type { BranchRepository } from '../git/branch-repository';
import type { OrchestratorContext } from '../host/context';
import { childEnvironment, COMMON_ENV_ALLOWLIST, PORT_ENV_NAME } from '../runtimes/env-allowlist';
import { containedCommand } from '../sandbox/contained-command';
import type { EgressDenial } from '../sandbox/egress/egress-denial';
import { startHostBridge } from '../sandbox/egress/host-bridge';
import { makeBridgeSocketPath } from '../sandbox/egress/socket-dir';
import { writeLaunchFiles } from '../sandbox/generated-etc';
import type { SandboxLauncher } from '../sandbox/sandbox-backend';
import { snapshotKeptPaths } from '../git/kept-paths';
import { assertCacheRootSafe, citadelCacheRoot, openStepNpmCache, type StepNpmCache } from '../setup/npm-cache';
import { npmConfigOnce, readNpmConfig, usesNpmConfig, type NpmConfig } from '../setup/package-toolchain';
import { registryEnv } from '../setup/registries';
import { runSetupSteps, type PreparedSetupStep } from '../setup/run-setup-steps';
import { readSetupFacts, type SetupFacts } from '../setup/setup-facts';
import { setupProgress } from '../setup/setup-progress';
import { PACKAGE_CACHE_ROOT, setupPolicyDigest, setupTemplate, type NPM_ENV_NAMES } from '../setup/setup-template';
import { writePrivateJson } from '../store/atomic-file';
import { crashPoint } from '../store/crash-points';
import { attemptFiles, attemptKey } from '../store/fork-layout';
import type { Journal } from '../store/journal';
import { containmentOf, sandboxLauncher, verifierLaunchPolicy } from './branch-containment';
import { redactedOutput } from './output-text';

export interface SetupBranchInput {
  readonly forkId: string;
  readonly branch: BranchRecord;
  readonly contract: Contract;
  readonly repository: BranchRepository;
  /** The operator's repository: no package cache may lie in or hold it. */
  readonly targetRepository: string;
  /** The first port of the branch's block, every step's CITADEL_PORT (named in the setup template, so in its digest). */
  readonly port: number;
  /** Aborted by a STOP of the branch: the step under way is ended and none after it runs. */
  readonly signal?: AbortSignal;
}

export type SetupOutcome = { readonly ok: true } | { readonly ok: false; readonly failure: SetupFailure };

/**
 * Runs the contract's setup steps in one branch attempt's worktree (issue 13), after the worktree
 * exists and before its runtime is launched: a journaled, repeatable effect (a crash mid-setup
 * reruns every step on resume; an install step is expected to be idempotent, as `npm ci` is). Once
 * setup passed, the ignored paths it left are fingerprinted (kept-paths.ts) so the verifier's tree
 * keeps exactly them. Contained when the contract is (the verifier's view, plus the step's own
 * package cache read-write and, for a `registries` step, the registry hosts through the filtering
 * proxy); runtime-only, uncontained, as the verifier is then. An npm step always gets a cache of its
 * own (npm-cache.ts), never the operator's or one a repository's `.npmrc` names.
 */
export async function setupBranch(ctx: OrchestratorContext, journal: Journal, input: SetupBranchInput): Promise<SetupOutcome> {
  const steps = input.contract.workflow.setup;
  if (steps === undefined) return { ok: true };
  const key = attemptKey(input.branch.branch_id, input.branch.attempt);
  const files = attemptFiles(ctx.root, input.forkId, input.branch.branch_id, input.branch.attempt);
  if (journal.status('setup.run', key) === 'done') return { ok: true };
  await ctx.root.ensureDir(files.dir);
  await journal.intent('setup.run', key);
  const progress = setupProgress(files.setupProgress, ctx.now);
  await progress.begin();
  const worktree = path.resolve(input.repository.workTree);
  const containment = containmentOf(input.contract);
  const launcher = containment.mode === 'contained' ? await sandboxLauncher(ctx) : null;
  const npm = steps.some((step) => usesNpmConfig(step.command)) ? await npmCacheSource(ctx, input.targetRepository) : null;
  const childEnv = childEnvironment(ctx.env, { envAllowlist: COMMON_ENV_ALLOWLIST }).env;
  const portEnv = { [PORT_ENV_NAME]: String(input.port) };
  const registryContext = { env: ctx.env, npm: npmConfigOnce(ctx.env) };
  const outcome = await runSetupSteps({
    steps,
    cwd: worktree,
    outputFile: files.setupOutput,
    ...(input.signal === undefined ? {} : { signal: input.signal }),
    onStep: async (step, status) => {
      await progress.step(step, status);
      ctx.events({ type: 'setup_step', fork_id: input.forkId, branch_id: input.branch.branch_id, step, status });
    },
    prepare: async (step) => {
      // Read before the cache opens: a step whose settings cannot be read leaves nothing open.
      const registries = step.network === 'registries' ? await registryEnv(step, registryContext) : {};
      const cache = npm !== null && usesNpmConfig(step.command) ? await openStepNpmCache(npm.root, worktree, npm.config) : null;
      const addedEnv = { ...registries, ...(npm === null || cache === null ? {} : npmEnv(npm.config, cache)), ...portEnv };
      const prepared =
        launcher === null || containment.mode !== 'contained'
          ? { contained: null, env: { ...childEnv, ...addedEnv }, close: () => Promise.resolve([]) }
          : await containedStep(ctx, launcher, containment.verifier, { forkId: input.forkId, branchId: input.branch.branch_id, attemptDir: files.dir, worktree, step, childEnv, addedEnv, cache }).catch(async (cause: unknown) => {
              await cache?.close(null);
              throw cause;
            });
      return cache === null ? prepared : closingCache(prepared, cache, path.join(files.dir, `setup-${step.id}-npm-logs`));
    },
  });
  crashPoint('setup.run:after-steps');
  const receiptContainment: ReceiptContainment =
    launcher === null || containment.mode !== 'contained'
      ? { mode: 'runtime-only' }
      : { mode: 'contained', backend: launcher.backend, backend_version: launcher.version, policy_digest: setupPolicyDigest(containment.verifier, steps) };
  if (outcome.failure !== null) {
    const facts: SetupFacts = { steps: outcome.steps, failure: outcome.failure, kept_paths_digest: null, containment: receiptContainment };
    await writePrivateJson(files.setupFacts, facts);
    await journal.result('setup.run', key, 'failed', { step_id: outcome.failure.step_id });
    return { ok: false, failure: outcome.failure };
  }
  const kept = await snapshotKeptPaths(input.repository, (input.contract.worktree_include ?? []).map((entry) => entry.path));
  await writePrivateJson(files.setupKept, kept);
  const facts: SetupFacts = { steps: outcome.steps, failure: null, kept_paths_digest: digestOf(kept), containment: receiptContainment };
  await writePrivateJson(files.setupFacts, facts);
  await journal.result('setup.run', key, 'done');
  return { ok: true };
}

/** The step's launch closed first (its egress bridge), then its npm cache, whose logs are kept when the step failed. */
function closingCache(prepared: PreparedSetupStep, cache: StepNpmCache, logsTo: string): PreparedSetupStep {
  return {
    ...prepared,
    close: async (failed) => {
      const notes = await prepared.close(failed).catch(async (cause: unknown) => {
        await cache.close(null);
        throw cause;
      });
      return [...notes, ...(await cache.close(failed ? logsTo : null))];
    },
  };
}

/** The operator's npm registry and cache (read, never mounted) and Citadel's cache root. */
async function npmCacheSource(ctx: OrchestratorContext, targetRepository: string): Promise<{ readonly config: NpmConfig; readonly root: string }> {
  return { config: await readNpmConfig(ctx.env), root: safeNpmCacheRoot(ctx, targetRepository) };
}

/**
 * Citadel's cache root, checked to be apart from the homes and the repository (SETUP_CACHE_UNSAFE);
 * also asked when a fork with npm setup is created, so such a fork is refused before it exists.
 */
export function safeNpmCacheRoot(ctx: OrchestratorContext, targetRepository: string): string {
  const root = citadelCacheRoot(ctx.env);
  assertCacheRootSafe(root, { home: ctx.env.HOME ?? os.homedir(), citadelHome: ctx.root.dir, repository: targetRepository });
  return root;
}

function npmEnv(npm: NpmConfig, cache: StepNpmCache): Record<(typeof NPM_ENV_NAMES)[number], string> {
  return { npm_config_cache: cache.dir, npm_config_registry: npm.registry, npm_config_update_notifier: 'false' };
}

interface ContainedStepInput {
  readonly forkId: string;
  readonly branchId: string;
  readonly attemptDir: string;
  readonly worktree: string;
  readonly step: SetupStep;
  /** The allowlisted environment the verifier's policy picks from. */
  readonly childEnv: Readonly<Record<string, string>>;
  /** Set whatever the template's names: npm's settings and CITADEL_PORT. */
  readonly addedEnv: Readonly<Record<string, string>>;
  /** The step's own npm cache, its one writable folder besides the worktree; null for a step that is not npm's. */
  readonly cache: StepNpmCache | null;
}

/** One step's sandboxed launch, through the clean launcher, with its egress bridge served here for the step's duration. */
async function containedStep(ctx: OrchestratorContext, launcher: SandboxLauncher, verifier: ContainmentTemplate, input: ContainedStepInput): Promise<PreparedSetupStep> {
  const template = setupTemplate(verifier, input.step);
  const base = await verifierLaunchPolicy(ctx, verifier, { forkId: input.forkId, branchId: input.branchId, worktree: input.worktree, command: input.step.command, childEnv: input.childEnv });
  const caches = template.read_write.includes(PACKAGE_CACHE_ROOT) && input.cache !== null ? [input.cache.dir] : [];
  const socket = template.egress.kind === 'cloud' ? await makeBridgeSocketPath() : null;
  const policy = parseContainmentPolicy({
    ...base,
    read_write: [...base.read_write, ...caches],
    env: { ...base.env, ...input.addedEnv },
    egress: template.egress.kind === 'cloud' && socket !== null ? { ...template.egress, socket } : { kind: 'none' },
  });
  const launchDir = path.join(input.attemptDir, `setup-launch-${input.step.id}`);
  const contained = containedCommand(launcher, policy, { command: input.step.command, args: input.step.args }, { launchDir, innerBridgeScript: ctx.innerBridgeScript, nodeExecPath: ctx.nodeExecPath });
  await writeLaunchFiles(contained.files);
  const denials: EgressDenial[] = [];
  const bridge = contained.bridge === null ? null : await startHostBridge({ socketPath: contained.bridge.socket_path, target: contained.bridge.target, onDenial: (denial) => denials.push(denial) });
  const allowed = template.egress.kind === 'cloud' ? template.egress.hosts.join(', ') : 'no host';
  return {
    // Through the clean launcher: this process's inherited descriptors must not reach setup.
    contained: { command: ctx.nodeExecPath, args: [ctx.cleanLaunchScript, String(contained.fdFiles.length), '--', contained.command, ...contained.args], env: contained.env, fdFiles: contained.fdFiles },
    env: contained.env,
    close: async () => {
      await bridge?.close();
      return denials.map((d) => `egress refused: ${d.host ?? '?'}:${d.port ?? '?'} (${d.reason}); this step may reach ${allowed}`);
    },
  };
}

/** What the receipt says of an attempt's setup: null when its contract has none. */
export async function setupEvidence(ctx: OrchestratorContext, forkId: string, branch: BranchRecord): Promise<SetupEvidence | null> {
  const facts = await readSetupFacts(attemptFiles(ctx.root, forkId, branch.branch_id, branch.attempt).setupFacts);
  if (facts === null || facts.failure !== null || facts.kept_paths_digest === null) return null;
  return { steps: facts.steps, kept_paths_digest: facts.kept_paths_digest, containment: facts.containment };
}

/**
 * Why each branch blocked by SETUP_FAILED failed, by branch id: its step, exit and output tail
 * (private, for the operator's display; never in a receipt or replay), the tail redacted by the
 * live trail's rules as the branch output is, since a terminal or its scrollback is shared too.
 */
export async function setupFailures(ctx: OrchestratorContext, forkId: string): Promise<Record<string, SetupFailure>> {
  const record = await ctx.store.readRecord(forkId);
  const failures: Record<string, SetupFailure> = {};
  for (const branch of record.branches.filter((b) => b.state === 'blocked' && b.blocked_code === 'SETUP_FAILED')) {
    const facts = await readSetupFacts(attemptFiles(ctx.root, forkId, branch.branch_id, branch.attempt).setupFacts);
    if (facts?.failure) failures[branch.branch_id] = { ...facts.failure, tail: await redactedOutput(facts.failure.tail) };
  }
  return failures;
}
