import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ForkEventSink } from '../../shared/fork/events';
import { defaultIssuerId, openKeyStore } from '../evidence/keys/key-store';
import { BUILTIN_ADAPTERS } from '../runtimes/registry';
import { BUILTIN_SANDBOX_BACKENDS } from '../sandbox/registry';
import { defaultForkRoot, ForkRoot } from '../store/fork-root';
import { ForkStore } from '../store/fork-store';
import type { OrchestratorContext } from './context';

/**
 * The supervisor is bundled beside the CLI (out/cli/supervisor.mjs beside out/cli/citadel.mjs);
 * a host bundled elsewhere (the Electron main) passes its own path.
 */
const SUPERVISOR_SCRIPT = fileURLToPath(new URL('./supervisor.mjs', import.meta.url));
/** The sandbox's inner bridge ships in the same folder as the supervisor, wherever a host has it. */
const INNER_BRIDGE_NAME = 'sandbox-inner-bridge.mjs';
const CLEAN_LAUNCH_NAME = 'sandbox-clean-launch.mjs';

type Adapters = OrchestratorContext['adapters'];

export interface ContextOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly events?: ForkEventSink;
  readonly adapters?: Adapters;
  readonly supervisorScript?: string;
  /** Default: sandbox-inner-bridge.mjs beside the supervisor script. */
  readonly innerBridgeScript?: string;
  readonly sandboxBackends?: OrchestratorContext['sandboxBackends'];
}

/** The runtime plug-ins a host runs with: the built-in ones unless it names its own. */
export function hostAdapters(options: Pick<ContextOptions, 'adapters'> = {}): Adapters {
  return options.adapters ?? BUILTIN_ADAPTERS;
}

/** Builds the orchestrator's context for one host from the operator's environment (decisions D2, D9). */
export async function openOrchestratorContext(options: ContextOptions = {}): Promise<OrchestratorContext> {
  const env = options.env ?? process.env;
  const root = await ForkRoot.open(defaultForkRoot(env));
  const supervisorScript = options.supervisorScript ?? path.resolve(SUPERVISOR_SCRIPT);
  return {
    root,
    store: new ForkStore(root),
    adapters: hostAdapters(options),
    env,
    keys: openKeyStore({ keysDir: root.keysDir(), env }),
    issuerId: env.CITADEL_ISSUER ?? defaultIssuerId(env),
    supervisorScript,
    innerBridgeScript: options.innerBridgeScript ?? path.join(path.dirname(supervisorScript), INNER_BRIDGE_NAME),
    cleanLaunchScript: path.join(path.dirname(supervisorScript), CLEAN_LAUNCH_NAME),
    nodeExecPath: process.execPath,
    sandboxBackends: options.sandboxBackends ?? BUILTIN_SANDBOX_BACKENDS,
    now: () => new Date(),
    events: options.events ?? (() => undefined),
  };
}
