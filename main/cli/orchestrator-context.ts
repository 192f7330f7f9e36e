import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ForkEventSink } from '../../shared/fork/events';
import { defaultIssuerId, openKeyStore } from '../evidence/keys/key-store';
import type { OrchestratorContext } from '../orchestrator/context';
import { BUILTIN_ADAPTERS } from '../runtimes/registry';
import type { RuntimeAdapter } from '../runtimes/runtime-adapter';
import { defaultForkRoot, ForkRoot } from '../store/fork-root';
import { ForkStore } from '../store/fork-store';

/** The supervisor is bundled beside the CLI (out/cli/supervisor.mjs). */
const SUPERVISOR_SCRIPT = fileURLToPath(new URL('./supervisor.mjs', import.meta.url));

export interface ContextOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly events?: ForkEventSink;
  readonly adapters?: Readonly<Record<string, RuntimeAdapter>>;
  readonly supervisorScript?: string;
}

/** Builds the orchestrator's context for one CLI invocation from the operator's environment (decisions D2, D9). */
export async function cliOrchestratorContext(options: ContextOptions = {}): Promise<OrchestratorContext> {
  const env = options.env ?? process.env;
  const root = await ForkRoot.open(defaultForkRoot(env));
  return {
    root,
    store: new ForkStore(root),
    adapters: options.adapters ?? BUILTIN_ADAPTERS,
    env,
    keys: openKeyStore({ keysDir: root.keysDir(), env }),
    issuerId: env.CITADEL_ISSUER ?? defaultIssuerId(env),
    supervisorScript: options.supervisorScript ?? path.resolve(SUPERVISOR_SCRIPT),
    nodeExecPath: process.execPath,
    now: () => new Date(),
    events: options.events ?? (() => undefined),
  };
}
