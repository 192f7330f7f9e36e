import path from 'node:path';
import { isWithin, parseContainmentPolicy, type ContainmentPolicy } from '../../shared/sandbox/containment-policy';
import { egressInside } from './egress/egress-environment';
import { innerBridgeArgv } from './egress/inner-bridge-args';
import type { EgressBridgeSpec } from './egress/egress-bridge-spec';
import type { LaunchFile, SandboxCommand, SandboxLauncher } from './sandbox-backend';

export interface ContainedCommandOptions {
  /** A Citadel-owned per-launch directory for the backend's generated files. */
  readonly launchDir: string;
  /** The bundled inner bridge (out/cli/sandbox-inner-bridge.mjs). */
  readonly innerBridgeScript: string;
  /** The Node that runs the inner bridge inside the sandbox. */
  readonly nodeExecPath: string;
}

export interface ContainedCommand {
  readonly command: string;
  readonly args: string[];
  readonly files: LaunchFile[];
  /** The environment to spawn `command` with, exactly: no value of it is in `args`. */
  readonly env: Record<string, string>;
  /** Opened read-only as fds 3, 4, … of the spawned `command` (SandboxLaunch.fdFiles). */
  readonly fdFiles: string[];
  readonly bridge: EgressBridgeSpec | null;
}

/**
 * A command as it runs contained: the backend's launch of it, with its one egress (when the policy
 * has one) through the inner bridge, which listens inside the sandbox and then starts the command.
 * containedCommand itself adds what the bridge needs, so no caller has to know it: the bridge
 * script's directory and Node's directory read-only (unless a root already holds them), and the
 * environment that sends the runtime's traffic through it (egressInside: the proxy variables for a
 * cloud runtime; nothing for a loopback provider, reached at 127.0.0.1:<its own port>).
 */
export function containedCommand(launcher: SandboxLauncher, policy: ContainmentPolicy, command: SandboxCommand, options: ContainedCommandOptions): ContainedCommand {
  if (policy.egress.kind === 'none') {
    const launch = launcher.launchSpec(policy, command, options.launchDir);
    return { command: launch.command, args: [...launch.args], files: [...launch.files], env: { ...launch.env }, fdFiles: [...launch.fdFiles], bridge: null };
  }
  const { socket, ...target } = policy.egress;
  const inside = egressInside(target);
  const bridged = parseContainmentPolicy({
    ...policy,
    read_only: withRoots(policy, [path.dirname(options.innerBridgeScript), path.dirname(options.nodeExecPath)]),
    env: { ...policy.env, ...inside.env },
  });
  const launch = launcher.launchSpec(
    bridged,
    {
      command: options.nodeExecPath,
      args: [options.innerBridgeScript, ...innerBridgeArgv({ listenPort: inside.listenPort, socketPath: socket, command: command.command, args: command.args })],
    },
    options.launchDir,
  );
  // The inner bridge inherits this environment and its command inherits it from the bridge.
  return { command: launch.command, args: [...launch.args], files: [...launch.files], env: { ...launch.env }, fdFiles: [...launch.fdFiles], bridge: { socket_path: socket, target } };
}

/** The policy's read-only roots plus each directory no root already holds. */
function withRoots(policy: ContainmentPolicy, dirs: readonly string[]): string[] {
  const roots = [...policy.read_only];
  const held = (dir: string): boolean => [...roots, ...policy.read_write].some((root) => isWithin(dir, root));
  for (const dir of dirs.map((d) => path.resolve(d))) if (!held(dir)) roots.push(dir);
  return roots;
}
