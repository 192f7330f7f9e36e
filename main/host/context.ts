import type { ForkEventSink } from '../../shared/fork/events';
import type { KeyStore } from '../evidence/keys/key-store';
import type { RuntimeAdapter } from '../runtimes/adapter-contract/runtime-adapter';
import type { SandboxBackend } from '../sandbox/sandbox-backend';
import type { ForkRoot } from '../store/fork-root';
import type { ForkStore } from '../store/fork-store';

/**
 * Everything the engine needs from its host; the CLI, Electron main and web host each build one.
 * It lives apart from the orchestrator, and imports types only, so that the rooms below it
 * (evidence, publish, landing, store) can take it without importing the orchestrator.
 */
export interface OrchestratorContext {
  readonly root: ForkRoot;
  readonly store: ForkStore;
  readonly adapters: Readonly<Record<string, RuntimeAdapter>>;
  /** The operator's environment; runtimes get only its allowlisted part (decisions D6). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly keys: KeyStore;
  readonly issuerId: string;
  /** The bundled supervisor entry (out/cli/supervisor.mjs). */
  readonly supervisorScript: string;
  /** The bundled sandbox inner bridge (out/cli/sandbox-inner-bridge.mjs), run by `nodeExecPath` inside a contained launch. */
  readonly innerBridgeScript: string;
  /** The bundled clean launcher (out/cli/sandbox-clean-launch.mjs): starts a contained verifier with no inherited descriptor. */
  readonly cleanLaunchScript: string;
  readonly nodeExecPath: string;
  /** The containment plug-ins (BUILTIN_SANDBOX_BACKENDS unless a test injects its own). */
  readonly sandboxBackends: Readonly<Record<string, SandboxBackend>>;
  readonly now: () => Date;
  readonly events: ForkEventSink;
}
