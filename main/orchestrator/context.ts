import type { ForkEventSink } from '../../shared/fork/events';
import type { KeyStore } from '../evidence/keys/key-store';
import type { RuntimeAdapter } from '../runtimes/runtime-adapter';
import type { ForkRoot } from '../store/fork-root';
import type { ForkStore } from '../store/fork-store';

/** Everything the orchestrator needs from its host; the CLI, Electron main and web host each build one. */
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
