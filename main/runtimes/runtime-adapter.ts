import type { ExecutorProfile } from '../../shared/executors/profile-schema';

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
 * A runtime plug-in (spec/adapters-and-safety.md). The engine works only through this
 * descriptor and never compares against a runtime id.
 */
export interface RuntimeAdapter {
  readonly id: string;
  /** Bare executable name, resolved on PATH at launch; never taken from a profile. */
  readonly executable: string;
  readonly vendorPackage: VendorPackage;
  /** The exact canonical argv for a validated profile of this runtime. */
  invocation(profile: ExecutorProfile): Invocation;
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
