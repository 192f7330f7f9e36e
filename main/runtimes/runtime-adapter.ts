import type { ExecutorProfile } from '../../shared/executors/profile-schema';
import type { ParsedRuntimeOutput } from '../../shared/runtime/telemetry';

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
  /** The exact canonical argv for a validated profile of this runtime. */
  invocation(profile: ExecutorProfile): Invocation;
  /** Reads only the runtime's declared machine output; unknown stays null. Never throws on bad output. */
  parseOutput(run: FinishedRun): Promise<ParsedRuntimeOutput>;
}

/** Narrows a profile to the adapter's runtime; a mismatch is a registration bug, so it throws. */
export function profileFor<R extends ExecutorProfile['runtime']>(
  runtime: R,
  profile: ExecutorProfile,
): Extract<ExecutorProfile, { runtime: R }> {
  if (profile.runtime !== runtime) {
    throw new TypeError(`adapter "${runtime}" was given a "${profile.runtime}" profile`);
  }
  return profile as Extract<ExecutorProfile, { runtime: R }>;
}
