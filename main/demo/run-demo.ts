import path from 'node:path';
import type { ExecutorProfile } from '../../shared/executors/profile-schema';
import type { ForkEventSink } from '../../shared/fork/events';
import { CitadelError } from '../../shared/errors';
import type { Comparison } from '../../shared/fork/compare';
import type { ForkRecord } from '../../shared/fork/fork-record';
import type { LandingCheck, SelectionRecord } from '../../shared/fork/landing';
import type { OrchestratorContext } from '../host/context';
import { defaultForkRoot } from '../store/fork-root';
import { compareFork, confirmLanding, exportProof, exportReplay, forkStatus, landingChecks, selectBranch, startFork } from '../orchestrator';
import { freshDemoScratch } from './demo-scratch';
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
  readonly comparison: Comparison;
  readonly selection: SelectionRecord;
  readonly checks: readonly LandingCheck[];
  readonly token: string;
  readonly mergeCommit: string;
  readonly replayFile: string;
  readonly proofFile: string;
  readonly proofDigest: string;
}

export interface DemoHost {
  /** Builds the orchestrator context for the demo's environment (simulated runtimes first on PATH). */
  context(env: Readonly<Record<string, string | undefined>>, events: ForkEventSink): Promise<OrchestratorContext>;
  readonly simulatedRuntimeModule: string;
}

/**
 * A complete fork through the real engine on a scratch repository with a failing test: the
 * simulated claude fixes the bug, the simulated codex makes a plausible wrong fix, and the
 * verifier tells them apart. Then compare, select, the landing checks and token, a local merge,
 * and the public replay and proof files. The fork is marked as a demo in its record. Each demo's
 * scratch replaces the previous demo's (demo-scratch.ts).
 */
/** Not a secret: the demo's gateways hold it, and its simulated runtimes never send anything. */
const DEMO_API_KEY = 'citadel-demo-no-provider';

export async function runDemo(host: DemoHost, parentEnv: Readonly<Record<string, string | undefined>>, events: ForkEventSink): Promise<DemoRun> {
  const scratch = await freshDemoScratch(defaultForkRoot(parentEnv));
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
    // The simulated runtimes call no provider, yet each contained branch's gateway holds a credential:
    // the demo's own, never the operator's real key (which the demo has no use for).
    ANTHROPIC_API_KEY: DEMO_API_KEY,
    ANTHROPIC_AUTH_TOKEN: undefined,
    CLAUDE_CODE_OAUTH_TOKEN: undefined,
    CODEX_API_KEY: DEMO_API_KEY,
    OPENAI_API_KEY: undefined,
  };
  let ctx = await host.context(env, events);
  // The demo must run on a fresh machine: without a reachable OS keychain it says so and uses the weaker file store.
  const keychain = await ctx.keys.status();
  const weakerKeyStore = !keychain.ready && env.CITADEL_KEYSTORE === undefined;
  if (weakerKeyStore) ctx = await host.context({ ...env, CITADEL_KEYSTORE: 'file' }, events);

  const started = await startFork(ctx, { objective: DEMO_OBJECTIVE, executors: { kind: 'executors', profiles: DEMO_PROFILES }, repo, workflowFile, demo: true }, { collect: 'wait' });
  const forkId = started.record.fork_id;

  // The operator's steps, as the CLI runs them: compare, select the recommendation, check, confirm.
  const comparison = await compareFork(ctx, forkId);
  if (comparison.outcome !== 'recommend' || comparison.recommended_branch_id === null) {
    throw new CitadelError('INTERNAL_ERROR', `the demo expected a recommendation, got ${comparison.outcome}`);
  }
  const selection = await selectBranch(ctx, forkId, { branchId: comparison.recommended_branch_id, actor: 'citadel-demo', reason: 'The only branch whose verifier passed.' });
  const plan = await landingChecks(ctx, forkId);
  if (plan.token === null) throw new CitadelError('INTERNAL_ERROR', 'the demo expected every landing check to pass');
  const landed = await confirmLanding(ctx, forkId, plan.token);

  const replayFile = path.join(scratch, `${forkId}.replay.json`);
  const proofFile = path.join(scratch, `${forkId}.proof.json`);
  await exportReplay(ctx, forkId, replayFile);
  const proof = await exportProof(ctx, forkId, proofFile);
  return {
    record: await forkStatus(ctx, forkId),
    scratch,
    repo,
    weakerKeyStore,
    comparison,
    selection,
    checks: plan.checks,
    token: plan.token,
    mergeCommit: landed.merge_commit,
    replayFile,
    proofFile,
    proofDigest: proof.digest,
  };
}
