import type { FinishedRun, RuntimeAdapter } from '../../../main/runtimes/adapter-contract/runtime-adapter';
import type { RuntimeProfile } from '../../../shared/executors/runtime-profile';
import type { ParsedRuntimeOutput } from '../../../shared/runtime/telemetry';

/**
 * The ONE case type every runtime adapter is checked with (spec/adapters-and-safety.md, "Runtimes
 * are plug-ins"). A case lives in its own file under cases/ and is listed in registry.ts; the
 * shared suite (conformance.test.ts) turns every case into the same assertions.
 */

/** Every kind must have at least one transcript; conformance.test.ts holds each kind's invariants. */
export const TRANSCRIPT_KINDS = ['success', 'failure', 'interleaved', 'truncated', 'cancelled', 'missing_telemetry'] as const;
export type TranscriptKind = (typeof TRANSCRIPT_KINDS)[number];

export interface Transcript {
  /** What the run is and which recording it derives from. */
  readonly name: string;
  /** The finished run; `scratch` is a fresh real directory (for files the parser reads, such as a rollout). */
  run(scratch: string): FinishedRun | Promise<FinishedRun>;
  /** The whole expected parse: outcome, failure code, telemetry (observed model or null), session, warnings. */
  readonly expected: ParsedRuntimeOutput;
}

/** The profile fields that shape argv. */
export type ProfileOptions = Pick<RuntimeProfile, 'model' | 'local_provider' | 'adapter_options'>;

export interface ArgvRow {
  readonly options: ProfileOptions;
  /** The executable, then every literal argument, in order. */
  readonly argv: readonly string[];
}

export interface ReadinessSetup {
  /** The line the executable prints for `--version`; a stand-in on a temp PATH prints exactly this. */
  readonly versionLine: string;
  /** An environment with this runtime's credentials, and the names readiness must report for it. */
  readonly authPresent: { readonly env: Readonly<Record<string, string>>; readonly sources: readonly string[] };
  /** An environment without them; other runtimes' credentials belong here, since they must not count. */
  readonly authAbsent: { readonly env: Readonly<Record<string, string>> };
}

export interface ConformanceCase {
  /** The runtime id this case claims: it must be the adapter's id and its registry key. */
  readonly runtime: string;
  readonly adapter: RuntimeAdapter;
  /**
   * Model values combined with every other profile option (null and explicit ids). The suite builds
   * every combination the adapter's profile schema accepts; `argv` must have exactly one row for each.
   */
  readonly models: readonly (string | null)[];
  readonly argv: readonly ArgvRow[];
  readonly transcripts: Readonly<Record<TranscriptKind, readonly Transcript[]>>;
  readonly readiness: ReadinessSetup;
}
