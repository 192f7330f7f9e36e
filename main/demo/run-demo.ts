import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ExecutorProfile } from '../../shared/executors/profile-schema';
import type { ForkEventSink } from '../../shared/fork/events';
import type { ForkRecord } from '../../shared/fork/fork-record';
import type { OrchestratorContext } from '../orchestrator/context';
import { createFork } from '../orchestrator/create-fork';
import { driveFork } from '../orchestrator/drive-fork';
import { createDemoRepository, DEMO_FIXED_SUM, DEMO_WRONG_SUM } from './demo-repository';
import { installSimulatedRuntimes } from './simulated-runtime';

/** Two profiles, one per runtime; the simulated runtimes stand in for the vendor CLIs. */
export const DEMO_PROFILES: readonly ExecutorProfile[] = [
  { profile_id: 'claude-sonnet', runtime: 'claude', model: 'claude-sonnet-4-5', local_provider: null, adapter_options: { effort: 'high' } },
  { profile_id: 'codex-gpt', runtime: 'codex', model: 'gpt-5.1-codex', local_provider: null, adapter_options: {} },
];

export const DEMO_OBJECTIVE = 'Make sum() in src/sum.js add its arguments; test/sum.test.js must pass.';

export interface DemoRun {
  readonly record: ForkRecord;
  readonly scratch: string;
  readonly repo: string;
  /** The file key store was used because no OS keychain answered. */
  readonly weakerKeyStore: boolean;
}

export interface DemoHost {
  /** Builds the orchestrator context for the demo's environment (simulated runtimes first on PATH). */
  context(env: Readonly<Record<string, string | undefined>>, events: ForkEventSink): Promise<OrchestratorContext>;
  readonly simulatedRuntimeModule: string;
}

/**
 * A complete fork through the real engine on a scratch repository with a failing test: the
 * simulated claude fixes the bug, the simulated codex makes a plausible wrong fix, and the
 * verifier tells them apart. The fork is marked as a demo in its record.
 */
export async function runDemo(host: DemoHost, parentEnv: Readonly<Record<string, string | undefined>>, events: ForkEventSink): Promise<DemoRun> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'citadel-demo-'));
  const { repo, workflowFile } = await createDemoRepository(scratch);
  const bin = path.join(scratch, 'bin');
  await installSimulatedRuntimes(
    bin,
    { claude: { edits: [{ path: 'src/sum.js', content: DEMO_FIXED_SUM }] }, codex: { edits: [{ path: 'src/sum.js', content: DEMO_WRONG_SUM }] } },
    process.execPath,
    host.simulatedRuntimeModule,
  );
  const env: Record<string, string | undefined> = {
    ...parentEnv,
    PATH: `${bin}${path.delimiter}${parentEnv.PATH ?? ''}`,
    CODEX_HOME: path.join(scratch, 'codex-home'),
  };
  let ctx = await host.context(env, events);
  // The demo must run on a fresh machine: without a reachable OS keychain it says so and uses the weaker file store.
  const keychain = await ctx.keys.status();
  const weakerKeyStore = !keychain.ready && env.CITADEL_KEYSTORE === undefined;
  if (weakerKeyStore) ctx = await host.context({ ...env, CITADEL_KEYSTORE: 'file' }, events);

  const created = await createFork(ctx, { objective: DEMO_OBJECTIVE, executors: { kind: 'executors', profiles: DEMO_PROFILES }, repo, workflowFile, demo: true });
  const record = await driveFork(ctx, created.record.fork_id, 'all');
  return { record, scratch, repo, weakerKeyStore };
}
