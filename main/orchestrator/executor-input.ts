import type { RuntimeProfile } from '../../shared/executors/runtime-profile';

/** A fork's executors as createFork takes them: a legacy runtime list (schema 1) or profiles (schema 2). */
export type ExecutorInput = { kind: 'runtimes'; list: string } | { kind: 'executors'; profiles: readonly RuntimeProfile[] };
