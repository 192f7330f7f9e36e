import type { ForkEventSink } from '../../shared/fork/events';
import type { KeyStore } from '../evidence/keys/key-store';
import type { RuntimeAdapter } from '../runtimes/runtime-adapter';
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
  readonly nodeExecPath: string;
  readonly now: () => Date;
  readonly events: ForkEventSink;
}
