import { existsSync } from 'node:fs';
import { mkdir, open, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CitadelError } from '../../shared/errors';
import type { RuntimeProfile } from '../../shared/executors/runtime-profile';
import type { ContractContainment, ContainmentChoice } from '../../shared/fork/containment-facts';
import type { Contract } from '../../shared/fork/contract';
import type { VerifierCommand } from '../../shared/fork/workflow';
import {
  containmentDigest,
  isWithin,
  resolveContainment,
  type ContainmentPolicy,
  type ContainmentTemplate,
  type EgressRule,
  type SandboxBackendId,
} from '../../shared/sandbox/containment-policy';
import { childEnvironment, COMMON_ENV_ALLOWLIST, PORT_ENV_NAME } from '../runtimes/env-allowlist';
import type { ResolvedExecutable } from '../runtimes/resolve-executable';
import type { GatewayInsideFacts, RuntimeAdapter, RuntimeHomeFile } from '../runtimes/adapter-contract/runtime-adapter';
import { egressInside } from '../sandbox/egress/egress-environment';
import { makeBridgeSocketPath } from '../sandbox/egress/socket-dir';
import { writeLaunchFiles } from '../sandbox/generated-etc';
import { findOnPath } from '../sandbox/probe-command';
import { readySandbox } from '../sandbox/registry';
import type { SandboxBackend, SandboxLauncher } from '../sandbox/sandbox-backend';
import { ForkRequestSchema } from '../../shared/fork/fork-request';
import { branchRepository } from '../store/fork-layout';
import type { ContainedVerifierLaunch } from '../verifier/run-verifier-command';
import type { OrchestratorContext } from '../host/context';
import { gatewayCredential } from './gateway-launch';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The roots a contained template names (issue 11, "what an executor sees"): the branch worktree
 * read-write, the git metadata its `git status/diff/log/show` reads read-only, the toolchain
 * read-only, and (the runtime only) its per-attempt home read-write. Nothing else of the host.
 */
export const ROOT = { worktree: 'worktree', git: 'git', toolchain: 'toolchain', runtimeHome: 'runtime-home' } as const;

/** Inside the sandbox /tmp is private (a tmpfs that vanishes with it). */
const SANDBOX_TMP = '/tmp';

/** The environment names a runtime may get: the allowlist's literal names, those its patterns match now, and what the sandbox sets. */
function runtimeEnvNames(adapter: RuntimeAdapter, egress: EgressRule, env: Env): string[] {
  const literal = [...COMMON_ENV_ALLOWLIST, ...adapter.envAllowlist].filter((entry): entry is string => typeof entry === 'string');
  const set = ['HOME', 'TMPDIR', PORT_ENV_NAME, ...adapter.containmentNeeds.homeEnv.map((home) => home.name), ...Object.keys(egressEnv(egress)), ...Object.keys(gatewayEnvOf(adapter, egress, SAMPLE_INSIDE))];
  const passed = [...literal, ...childEnvironment(env, adapter).presentNames].filter((name) => egress.kind !== 'gateway' || !withheldFromGatewayRun(adapter, name));
  return [...new Set([...passed, ...set])].sort();
}

/**
 * Named like a secret: an allowlist pattern (Claude's `CLAUDE_CODE_*`) also admits the CLI's other
 * credentials (a refresh token, a session token, a client secret, a key passphrase), and new ones
 * with each release. Behaviour settings (`…_MAX_OUTPUT_TOKENS`) end otherwise.
 */
const SECRET_NAME = /(?:_TOKEN|SECRET|PASSWORD|PASSPHRASE|_KEY)$/i;

/** With a gateway the runtime authenticates with its placeholder only: no credential of the operator's goes in. */
function withheldFromGatewayRun(adapter: RuntimeAdapter, name: string): boolean {
  return adapter.credentialEnvNames.includes(name) || SECRET_NAME.test(name);
}

function egressEnv(egress: EgressRule): Readonly<Record<string, string>> {
  return egress.kind === 'none' ? {} : egressInside(egress).env;
}

/** Names only: what a gateway's inside environment sets does not depend on the values. */
const SAMPLE_INSIDE: GatewayInsideFacts = { placeholder: '', caCertFile: '' };

/** The adapter's environment pointing it at its gateway, holding only the placeholder; nothing for another egress. */
function gatewayEnvOf(adapter: RuntimeAdapter, egress: EgressRule, inside: GatewayInsideFacts): Readonly<Record<string, string>> {
  return egress.kind === 'gateway' ? adapter.containmentNeeds.gatewayEnv(egress, { ...inside, caCertFile: egress.inside.kind === 'tls' ? inside.caCertFile : null }) : {};
}

/** What one branch's runtime sees: its worktree and home read-write, git metadata and toolchain read-only, its provider only. */
export function runtimeTemplate(backend: SandboxBackendId, adapter: RuntimeAdapter, profile: RuntimeProfile, env: Env): ContainmentTemplate {
  const egress = adapter.containmentNeeds.egress(profile, env);
  return {
    backend,
    read_only: [ROOT.git, ROOT.toolchain],
    read_write: [ROOT.worktree, ROOT.runtimeHome],
    tmpfs: [],
    env_names: runtimeEnvNames(adapter, egress, env),
    egress,
    cwd: ROOT.worktree,
  };
}

/** What the workflow verifier sees: the same worktree and git metadata, the toolchain, no runtime home, no network. */
export function verifierTemplate(backend: SandboxBackendId, env: Env): ContainmentTemplate {
  const literal = COMMON_ENV_ALLOWLIST.filter((entry): entry is string => typeof entry === 'string');
  const present = childEnvironment(env, { envAllowlist: [] }).presentNames;
  return {
    backend,
    read_only: [ROOT.git, ROOT.toolchain],
    read_write: [ROOT.worktree],
    tmpfs: [],
    env_names: [...new Set([...literal, ...present, 'HOME', 'TMPDIR', PORT_ENV_NAME])].sort(),
    egress: { kind: 'none' },
    cwd: ROOT.worktree,
  };
}

/**
 * The containment a new fork's contract binds: `runtime-only` when the operator chose it, else
 * the platform backend's templates, or SANDBOX_UNAVAILABLE (fail closed) when no backend works.
 * Called before any fork state or worktree exists.
 */
export async function contractContainment(
  ctx: OrchestratorContext,
  choice: ContainmentChoice,
  branches: readonly { readonly branchId: string; readonly profile: RuntimeProfile; readonly adapter: RuntimeAdapter }[],
): Promise<ContractContainment> {
  if (choice === 'runtime-only') {
    assertRuntimeOnlyOffered(branches.map((b) => b.adapter));
    return { mode: 'runtime-only' };
  }
  const launcher = await sandboxLauncher(ctx);
  const runtimes = Object.fromEntries(branches.map((b) => [b.branchId, runtimeTemplate(launcher.backend, b.adapter, b.profile, ctx.env)]));
  // Each gateway needs the operator's credential on this host: refused now, before anything exists, with what to do.
  for (const b of branches) if (runtimes[b.branchId]?.egress.kind === 'gateway') await gatewayCredential(ctx, b.adapter, b.profile);
  const verifier = verifierTemplate(launcher.backend, ctx.env);
  return {
    mode: 'contained',
    backend: launcher.backend,
    runtimes,
    verifier,
    runtime_policy_digests: Object.fromEntries(Object.entries(runtimes).map(([id, template]) => [id, containmentDigest(template)])),
    verifier_policy_digest: containmentDigest(verifier),
  };
}

/**
 * Refuses `runtime-only` when any runtime does not offer it, naming each and its own reason: for
 * those runtimes only the OS sandbox and the provider gateway keep the operator's key and host safe.
 */
export function assertRuntimeOnlyOffered(adapters: readonly Pick<RuntimeAdapter, 'id' | 'runtimeOnly'>[]): void {
  const refused = new Map<string, string>();
  for (const adapter of adapters) if (adapter.runtimeOnly !== 'offered') refused.set(adapter.id, adapter.runtimeOnly.refused);
  if (refused.size === 0) return;
  const why = [...refused].map(([id, reason]) => `${id}: ${reason}`).join('; ');
  throw new CitadelError('RUNTIME_ONLY_NOT_OFFERED', `runtime-only containment is not offered for ${[...refused.keys()].join(', ')}, which run contained only (${why}). Start it with --containment auto.`, {
    details: { runtimes: Object.fromEntries(refused) },
  });
}

/** The contract's containment, with a contract from before containment read as `runtime-only`. */
export function containmentOf(contract: Contract): ContractContainment {
  return contract.containment ?? { mode: 'runtime-only' };
}

// One probe per backend set and PATH per process: a probe runs a trial sandbox, and every launch needs a launcher.
const probed = new WeakMap<Readonly<Record<string, SandboxBackend>>, Map<string, Promise<SandboxLauncher>>>();

/** The platform's working launcher, or SANDBOX_UNAVAILABLE naming what is missing and the package. */
export function sandboxLauncher(ctx: Pick<OrchestratorContext, 'sandboxBackends' | 'env'>): Promise<SandboxLauncher> {
  const byPath = probed.get(ctx.sandboxBackends) ?? new Map<string, Promise<SandboxLauncher>>();
  probed.set(ctx.sandboxBackends, byPath);
  const key = ctx.env['PATH'] ?? '';
  const known = byPath.get(key);
  if (known) return known;
  const probe = readySandbox(process.platform, ctx.sandboxBackends, ctx.env);
  byPath.set(key, probe);
  // A failed probe is not remembered: the operator may install the package and try again.
  probe.catch(() => byPath.delete(key));
  return probe;
}

/** Where one attempt's contained launch keeps its private files, beside its other attempt files. */
export function attemptSandboxDirs(attemptDir: string): { readonly home: string; readonly launch: string; readonly verifierLaunch: string } {
  return { home: path.join(attemptDir, 'home'), launch: path.join(attemptDir, 'launch'), verifierLaunch: path.join(attemptDir, 'verifier-launch') };
}

/**
 * The git metadata a branch's git commands read, never write: its own git dir and the base object
 * store its alternates name (the per-branch repository), from the fork layout, never from the
 * agent-writable `.git` file.
 */
export async function gitRoots(ctx: OrchestratorContext, forkId: string, branchId: string): Promise<string[]> {
  return realpaths(branchRepository(ctx.root, forkId, branchId).readOnlyGitRoots.filter((root) => existsSync(root)));
}

/**
 * What no toolchain root may hold or lie in: the fork root (fork state, key store, every worktree)
 * and the operator's repository; and what none may hold: the operator's home.
 */
async function hiddenRoots(ctx: OrchestratorContext, forkId: string): Promise<{ readonly inside: string[]; readonly around: string[] }> {
  const request = await ctx.store.readJson(forkId, 'request', ForkRequestSchema);
  const home = ctx.env['HOME'];
  return { inside: await realpaths([ctx.root.dir, request.repo]), around: home !== undefined && path.isAbsolute(home) ? await realpaths([home]) : [] };
}

/**
 * The toolchain a resolved executable needs, read-only: the PATH entry it was found in, its real
 * install root (the whole node_modules tree for an npm package), and the prefix of its `#!`
 * interpreter and of Citadel's own Node (the egress bridge runs on it). /usr is always seen.
 */
export async function toolchainRoots(
  executable: Pick<ResolvedExecutable, 'command' | 'foundAt' | 'argsPrefix'> | null,
  env: Env,
  nodeExecPath: string,
): Promise<string[]> {
  const roots: string[] = executable === null ? [] : [path.dirname(executable.foundAt)];
  const files = executable === null ? [] : [executable.foundAt, executable.command, ...executable.argsPrefix.slice(0, 1)];
  for (const file of files) {
    const real = await realpath(file).catch(() => null);
    if (real === null) continue;
    roots.push(installRoot(real));
    const interpreter = await shebangInterpreter(real, env);
    if (interpreter !== null) roots.push(prefixOf(interpreter, env));
  }
  roots.push(prefixOf(await realpath(nodeExecPath).catch(() => nodeExecPath), env));
  return outermost((await realpaths(roots)).filter((root) => !isWithin(root, '/usr')));
}

function installRoot(realFile: string): string {
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = realFile.indexOf(marker);
  return at === -1 ? path.dirname(realFile) : realFile.slice(0, at + marker.length - 1);
}

/**
 * `<prefix>/bin/node` -> `<prefix>`; anything else -> its directory. Never a prefix that holds the
 * operator's home: `~/bin/python3` must not turn the whole home into a toolchain root.
 */
function prefixOf(binary: string, env: Env): string {
  const dir = path.dirname(binary);
  const prefix = path.dirname(dir);
  const home = env['HOME'];
  const holdsHome = home !== undefined && path.isAbsolute(home) && isWithin(path.resolve(home), prefix);
  return path.basename(dir) === 'bin' && !holdsHome ? prefix : dir;
}

/** The real interpreter a `#!` line names (`#!/usr/bin/env node` is followed on PATH), or null. */
async function shebangInterpreter(file: string, env: Env): Promise<string | null> {
  const handle = await open(file, 'r').catch(() => null);
  if (handle === null) return null;
  let head: string;
  try {
    const buffer = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    head = buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
  if (!head.startsWith('#!')) return null;
  const [interpreter, firstArg] = (head.slice(2).split('\n')[0] ?? '').trim().split(/\s+/);
  if (interpreter === undefined || !path.isAbsolute(interpreter)) return null;
  const named = path.basename(interpreter) === 'env' && firstArg !== undefined && !firstArg.startsWith('-') ? await findOnPath(firstArg, env) : interpreter;
  return named === null ? null : realpath(named).catch(() => null);
}

async function realpaths(paths: readonly string[]): Promise<string[]> {
  return Promise.all(paths.map((p) => realpath(p).catch(() => path.resolve(p))));
}

/** Each root once, and none inside another (the outer one already shows it). */
function outermost(roots: readonly string[]): string[] {
  const unique = [...new Set(roots)].sort();
  return unique.filter((root) => !unique.some((other) => other !== root && isWithin(root, other)));
}

/**
 * A toolchain root that holds the fork root, a worktree or the operator repository would show the
 * executor what containment hides (e.g. a runtime installed in the home that also holds the fork
 * root): refused rather than launched.
 */
function assertToolchainSafe(toolchain: readonly string[], hidden: { readonly inside: readonly string[]; readonly around: readonly string[] }): void {
  const exposing = toolchain.find(
    (root) => hidden.inside.some((secret) => isWithin(secret, root) || isWithin(root, secret)) || hidden.around.some((secret) => isWithin(secret, root)),
  );
  if (exposing !== undefined) {
    throw new CitadelError('SANDBOX_UNAVAILABLE', `the toolchain directory ${exposing} overlaps Citadel's fork state, the repository or the home directory; install the runtime elsewhere`, {
      details: { backend: null, problem: `toolchain root ${exposing} holds private state`, install: null },
    });
  }
}

export interface BranchLaunchInput {
  readonly forkId: string;
  readonly branchId: string;
  readonly attemptDir: string;
  readonly worktree: string;
  readonly adapter: RuntimeAdapter;
  readonly resolved: ResolvedExecutable;
  /** The runtime's allowlisted environment (decisions D6). */
  readonly childEnv: Readonly<Record<string, string>>;
  /** For a gateway egress: the attempt's placeholder and, when TLS is terminated, its CA certificate on the host. */
  readonly gateway: { readonly placeholder: string; readonly caCertFile: string | null } | null;
}

/** Where a TLS-terminated gateway's CA certificate is seen inside the runtime home (read-only). */
const GATEWAY_CA_TARGET = 'citadel-gateway-ca.pem';

/**
 * One runtime attempt's policy: the contract's template for the branch resolved to this machine's
 * paths, with HOME and each home variable pointed into a fresh per-attempt runtime home. With a
 * provider gateway (issue 28) no credential of the operator's reaches it: the adapter's credential
 * variables are left out, and the runtime gets the gateway's address and the attempt's placeholder.
 */
export async function runtimeLaunchPolicy(ctx: OrchestratorContext, template: ContainmentTemplate, input: BranchLaunchInput): Promise<ContainmentPolicy> {
  const dirs = attemptSandboxDirs(input.attemptDir);
  const homeEnv = runtimeHomeEnv(input.adapter, input.attemptDir);
  for (const dir of new Set([dirs.home, ...input.adapter.containmentNeeds.homeEnv.map((home) => homeEnv[home.name]!)])) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  }
  for (const file of input.adapter.containmentNeeds.homeFiles ?? []) await writeRuntimeHomeFile(dirs.home, file);
  if (template.egress.kind === 'gateway' && input.gateway === null) throw new CitadelError('INTERNAL_ERROR', 'a gateway launch needs its placeholder');
  const caFile = input.gateway?.caCertFile ?? null;
  const caTarget = caFile === null ? null : path.join(dirs.home, GATEWAY_CA_TARGET);
  const childEnv =
    template.egress.kind === 'gateway' ? Object.fromEntries(Object.entries(input.childEnv).filter(([name]) => !withheldFromGatewayRun(input.adapter, name))) : input.childEnv;
  const gatewayEnv = input.gateway === null ? {} : gatewayEnvOf(input.adapter, template.egress, { placeholder: input.gateway.placeholder, caCertFile: caTarget });
  const toolchain = await toolchainRoots(input.resolved, input.childEnv, ctx.nodeExecPath);
  assertToolchainSafe(toolchain, await hiddenRoots(ctx, input.forkId));
  return resolveContainment(template, {
    roots: {
      [ROOT.worktree]: input.worktree,
      [ROOT.git]: await gitRoots(ctx, input.forkId, input.branchId),
      [ROOT.toolchain]: toolchain,
      [ROOT.runtimeHome]: dirs.home,
    },
    env: { ...childEnv, ...homeEnv, ...egressEnv(template.egress), ...gatewayEnv },
    // A fresh private directory per launch; the launch spec records the path for the supervisor (a launch is never repeated).
    egressSocket: template.egress.kind === 'none' ? null : await makeBridgeSocketPath(),
    readOnlyFiles: caFile === null || caTarget === null ? [] : [{ source: caFile, target: caTarget }],
  });
}

/** One of the adapter's home files, below the attempt's runtime home only: a segment that could leave it is a registration bug. */
async function writeRuntimeHomeFile(home: string, file: RuntimeHomeFile): Promise<void> {
  if (file.path.length === 0 || file.path.some((segment) => segment === '' || segment === '.' || segment === '..' || /[/\\\0]/.test(segment))) {
    throw new CitadelError('INTERNAL_ERROR', `a runtime home file must be named by plain path segments, not ${JSON.stringify(file.path)}`);
  }
  const target = path.join(home, ...file.path);
  await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  await writeFile(target, file.content, { mode: 0o600 });
}

/** HOME, TMPDIR and each home variable of the adapter as a contained runtime of this attempt has them. */
export function runtimeHomeEnv(adapter: RuntimeAdapter, attemptDir: string): Record<string, string> {
  const home = attemptSandboxDirs(attemptDir).home;
  const env: Record<string, string> = { HOME: home, TMPDIR: SANDBOX_TMP };
  for (const named of adapter.containmentNeeds.homeEnv) env[named.name] = path.join(home, named.dir);
  return env;
}

/**
 * The environment a runtime was given, as its adapter's parser must read it (e.g. Codex's rollout
 * lies in its CODEX_HOME): contained, the homes point into the attempt's runtime home.
 */
export function runtimeEnvironmentOf(contract: Contract, adapter: RuntimeAdapter, attemptDir: string, childEnv: Readonly<Record<string, string>>): Record<string, string> {
  return containmentOf(contract).mode === 'contained' ? { ...childEnv, ...runtimeHomeEnv(adapter, attemptDir) } : { ...childEnv };
}

/** The verifier's policy for one attempt: no runtime home, HOME and TMPDIR in its private /tmp, no network. */
export async function verifierLaunchPolicy(
  ctx: OrchestratorContext,
  template: ContainmentTemplate,
  input: { readonly forkId: string; readonly branchId: string; readonly worktree: string; readonly command: string; readonly childEnv: Readonly<Record<string, string>> },
): Promise<ContainmentPolicy> {
  // A verifier command missing from PATH fails inside the sandbox exactly as it would outside.
  const found = await findOnPath(input.command, input.childEnv);
  const toolchain = await toolchainRoots(found === null ? null : { command: found, foundAt: found, argsPrefix: [] }, input.childEnv, ctx.nodeExecPath);
  assertToolchainSafe(toolchain, await hiddenRoots(ctx, input.forkId));
  return resolveContainment(template, {
    roots: { [ROOT.worktree]: input.worktree, [ROOT.git]: await gitRoots(ctx, input.forkId, input.branchId), [ROOT.toolchain]: toolchain },
    env: { ...input.childEnv, HOME: SANDBOX_TMP, TMPDIR: SANDBOX_TMP },
    egressSocket: null,
  });
}

/**
 * The workflow verifier's contained launch when the contract is contained (it runs code the agent
 * just wrote), else null (runtime-only: as before). Files go into the attempt's verifier launch dir.
 */
export async function containedVerifier(
  ctx: OrchestratorContext,
  contract: Contract,
  input: { readonly forkId: string; readonly branchId: string; readonly attemptDir: string; readonly worktree: string; readonly verifier: VerifierCommand; readonly childEnv: Readonly<Record<string, string>> },
): Promise<ContainedVerifierLaunch | null> {
  const containment = containmentOf(contract);
  if (containment.mode !== 'contained') return null;
  const launcher = await sandboxLauncher(ctx);
  const policy = await verifierLaunchPolicy(ctx, containment.verifier, { ...input, worktree: path.resolve(input.worktree), command: input.verifier.command });
  const launch = launcher.launchSpec(policy, { command: input.verifier.command, args: input.verifier.args }, attemptSandboxDirs(input.attemptDir).verifierLaunch);
  await writeLaunchFiles(launch.files);
  // Through the clean launcher: this process's inherited descriptors must not reach the verifier.
  return {
    command: ctx.nodeExecPath,
    args: [ctx.cleanLaunchScript, String(launch.fdFiles.length), '--', launch.command, ...launch.args],
    env: { ...launch.env },
    fdFiles: [...launch.fdFiles],
  };
}
