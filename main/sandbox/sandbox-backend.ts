import { CitadelError } from '../../shared/errors';
import type { ContainmentPolicy, SandboxBackendId } from '../../shared/sandbox/containment-policy';

/** A command as a runtime adapter or the verifier would run it uncontained. */
export interface SandboxCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** A file a launch needs on the host before it starts: a generated /etc/passwd, a seccomp program. */
export type LaunchFile = { readonly path: string; readonly text: string } | { readonly path: string; readonly bytes: Uint8Array };

/**
 * The contained form of a command: a literal argv, spawned with `shell: false`, exactly `env` as
 * its environment and `cwd` = the policy's cwd, after `files` are written. No environment value is
 * ever in the argv: an argv is readable by every local user (/proc/<pid>/cmdline), an environment
 * only by its owner, and the policy's environment holds credentials.
 */
export interface SandboxLaunch extends SandboxCommand {
  readonly files: readonly LaunchFile[];
  /** Exactly the policy's environment: the backend passes it on to the command. */
  readonly env: Record<string, string>;
  /**
   * Files (among `files`) whoever spawns the launch opens read-only as its fds 3, 4, … in this
   * order (the argv names them by number, e.g. bwrap's `--seccomp 3`); a spawn without them fails.
   */
  readonly fdFiles: readonly string[];
}

/** A backend found working on this host, by a probe: nothing can be launched without one. */
export interface SandboxLauncher {
  readonly backend: SandboxBackendId;
  readonly executable: string;
  readonly version: string;
  /**
   * Pure: the same policy, command and launch directory always give the same launch. Files go
   * under `launchDir`, a Citadel-owned per-launch directory the sandbox sees only file by file.
   */
  launchSpec(policy: ContainmentPolicy, command: SandboxCommand, launchDir: string): SandboxLaunch;
}

/** A containment plug-in (architecture: like the runtime adapters, the engine never names one). */
export interface SandboxBackend {
  readonly id: SandboxBackendId;
  readonly platforms: readonly NodeJS.Platform[];
  /** Finds the backend's executable, reads its version and runs a trial; SANDBOX_UNAVAILABLE otherwise. */
  probe(env: Readonly<Record<string, string | undefined>>): Promise<SandboxLauncher>;
}

/** The refusal every probe gives: what is missing, and what provides it. */
export function sandboxUnavailable(backend: SandboxBackendId | null, problem: string, install: string | null): CitadelError {
  return new CitadelError('SANDBOX_UNAVAILABLE', install === null ? problem : `${problem}; install: ${install}`, {
    details: { backend, problem, install },
  });
}

/** A launcher given another backend's policy is a wiring bug, not an operator error. */
export function assertPolicyBackend(backend: SandboxBackendId, policy: ContainmentPolicy): void {
  if (policy.backend !== backend) throw new TypeError(`the ${backend} launcher was given a ${policy.backend} policy`);
}
