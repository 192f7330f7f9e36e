import type { z } from 'zod';
import { CitadelError } from '../../../shared/errors';
import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import type { RuntimeOnlyOffer } from '../../../shared/executors/runtimes/descriptor';
import type { GatewayRule } from '../../../shared/sandbox/containment-policy';
import type { RuntimeActivity } from '../../../shared/fork/events';
import type { ParsedRuntimeOutput } from '../../../shared/runtime/telemetry';
import { zodViolations } from '../../../shared/zod-violations';
import type { RuntimeCredentials } from '../credentials/runtime-credentials';

/** An executable plus literal argument array; spawned with shell: false, prompt on stdin (decisions D5). */
export interface Invocation {
  readonly executable: string;
  readonly args: readonly string[];
}

/** The npm package that ships a runtime's CLI, for the Windows .cmd shim rule. */
export interface VendorPackage {
  readonly name: string;
  readonly bin: string;
}

/**
 * Whether a run is contained by the operating system (issue 11) or by the vendor CLI alone. An
 * adapter may grant more inside a sandbox (e.g. edits the permission mode could not grant safely
 * without one); the argv stays a pure function of the profile and this mode.
 */
export type InvocationContainment = 'contained' | 'runtime-only';

/** An environment name the sandbox points at a directory of the branch's runtime home. */
export interface RuntimeHomeEnv {
  readonly name: string;
  /** One path segment below the runtime home, e.g. `codex`. */
  readonly dir: string;
}

/**
 * A file a runtime needs in its fresh per-attempt home before it starts (a settings file it will not
 * run without), written by Citadel there and never into the operator's own home.
 */
export interface RuntimeHomeFile {
  /** Plain path segments below the runtime home, e.g. `['gemini', '.gemini', 'settings.json']`. */
  readonly path: readonly string[];
  readonly content: string;
}

/** What a runtime is given inside the sandbox to reach its provider gateway: never a real credential. */
export interface GatewayInsideFacts {
  /** The attempt's random placeholder credential, which the gateway swaps for the real one. */
  readonly placeholder: string;
  /** The attempt CA's certificate inside the sandbox, for a TLS-terminated gateway; null otherwise. */
  readonly caCertFile: string | null;
}

/** What a runtime needs from a sandbox: where it connects, and its own home. */
export interface RuntimeContainmentNeeds {
  /** The runtime's provider gateway for this profile (issue 28), from the operator's environment; `none` for a runtime with no provider. */
  egress(profile: RuntimeProfile, env: Readonly<Record<string, string | undefined>>): GatewayRule | { readonly kind: 'none' };
  /** The environment that points the runtime at its gateway inside the sandbox, holding only the placeholder. */
  gatewayEnv(rule: GatewayRule, inside: GatewayInsideFacts): Readonly<Record<string, string>>;
  readonly homeEnv: readonly RuntimeHomeEnv[];
  /** Files written into the runtime home of each contained attempt; none when absent. */
  readonly homeFiles?: readonly RuntimeHomeFile[];
}

/** One finished run as the supervisor recorded it. */
export interface FinishedRun {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The assigned worktree (realpath), for bindings such as the Codex rollout cwd. */
  readonly worktree: string;
  /** The exact environment the runtime was given (allowlisted, decisions D6). */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * A runtime plug-in (spec/adapters-and-safety.md). The engine works only through this
 * descriptor and never compares against a runtime id.
 */
export interface RuntimeAdapter {
  readonly id: string;
  /** Bare executable name, resolved on PATH at launch; never taken from a profile. */
  readonly executable: string;
  readonly vendorPackage: VendorPackage;
  /** Runtime-specific environment names passed through on top of the common allowlist (decisions D6). */
  readonly envAllowlist: readonly (string | RegExp)[];
  /** Environment names whose presence suggests credentials are configured (names only, never values). */
  readonly credentialEnvNames: readonly string[];
  /** Where the runtime's provider credential lives on the host, for its gateway and readiness (issue 28). */
  readonly credentials: RuntimeCredentials;
  /** The strict schema of this runtime's profiles: the engine accepts no profile it rejects. */
  readonly profileSchema: z.ZodType<RuntimeProfile>;
  /** The exact canonical argv for a profile of this runtime and a containment mode (default `runtime-only`; checked with profileFor). */
  invocation(profile: RuntimeProfile, containment?: InvocationContainment): Invocation;
  /** Whether a fork may run this runtime `--containment runtime-only`, or why not (refused before anything exists). */
  readonly runtimeOnly: RuntimeOnlyOffer;
  readonly containmentNeeds: RuntimeContainmentNeeds;
  /** Reads only the runtime's declared machine output; unknown stays null. Never throws on bad output. */
  parseOutput(run: FinishedRun): Promise<ParsedRuntimeOutput>;
  /**
   * One stdout line as it arrives, in plain words (issue 14); absent for a runtime whose output
   * comes only at exit. Never throws; null for a line with nothing to show.
   */
  liveActivity?(line: string): RuntimeActivity | null;
}

/**
 * A profile as the adapter's own strict schema reads it. Another runtime's profile is a
 * registration bug, so it throws a TypeError; a profile the schema rejects is EXECUTOR_PROFILE_INVALID.
 */
export function profileFor<P>(runtime: string, schema: z.ZodType<P>, profile: RuntimeProfile): P {
  if (profile.runtime !== runtime) {
    throw new TypeError(`adapter "${runtime}" was given a "${profile.runtime}" profile`);
  }
  const parsed = schema.safeParse(profile);
  if (!parsed.success) {
    throw new CitadelError('EXECUTOR_PROFILE_INVALID', `profile "${profile.profile_id}" is not a valid ${runtime} profile`, {
      violations: zodViolations(parsed.error.issues, [], profile),
    });
  }
  return parsed.data;
}
