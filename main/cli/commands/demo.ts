import { fileURLToPath } from 'node:url';
import type { ForkEvent } from '../../../shared/fork/events';
import { runDemo } from '../../demo/run-demo';
import type { OrchestratorContext } from '../../host/context';
import { labelledStatus } from '../../orchestrator';
import { openOrchestratorContext } from '../../host/open-context';
import { printJson, type Io } from '../io/output';
import { renderComparison } from './render-comparison';
import { describeEvent, renderForkStatus, renderLandingChecks } from './render-fork';

/** Bundled beside the CLI (out/cli/simulated-runtime.mjs). */
const SIMULATED_RUNTIME = fileURLToPath(new URL('./simulated-runtime.mjs', import.meta.url));

export async function demoCommand(io: Io, options: { json: boolean }): Promise<void> {
  const events = options.json ? () => undefined : (event: ForkEvent) => io.stderr(describeEvent(event));
  if (!options.json) io.stdout('Citadel demo: one objective, two simulated executors, one verifier.\n\n');
  // The last context the demo opened is the one whose fork root holds the fork: its labels are read there.
  let opened: OrchestratorContext | null = null;
  const context = async (env: Readonly<Record<string, string | undefined>>, sink: typeof events): Promise<OrchestratorContext> => (opened = await openOrchestratorContext({ env, events: sink }));
  const demo = await runDemo({ context, simulatedRuntimeModule: SIMULATED_RUNTIME }, process.env, events);
  if (opened === null) throw new Error('the demo opened no orchestrator context');
  const status = await labelledStatus(opened, demo.record);
  if (options.json) {
    printJson(io, {
      ...status,
      weaker_key_store: demo.weakerKeyStore,
      scratch: demo.scratch,
      comparison: { outcome: demo.comparison.outcome, recommended_branch_id: demo.comparison.recommended_branch_id },
      selection: demo.selection,
      landing: { checks: demo.checks, token: demo.token, merge_commit: demo.mergeCommit },
      replay_file: demo.replayFile,
      proof_file: demo.proofFile,
      proof_digest: demo.proofDigest,
    });
    return;
  }
  const id = status.fork_id;
  const lines = [
    '',
    `Scratch repository: ${demo.repo} (its test fails until sum() adds)`,
    `Scratch folder: ${demo.scratch} (the next citadel demo replaces it; rm -rf it to remove it now)`,
    'The simulated claude fixed the bug; the simulated codex made a plausible wrong fix. The workflow verifier',
    '(node --test test/sum.test.js) ran in each worktree after the runtime exited; each result is bound to an',
    'ed25519-signed execution receipt and fork receipt.',
    '',
    `$ citadel fork compare ${id}`,
    renderComparison(demo.comparison).trimEnd(),
    '',
    `$ citadel fork select ${id} ${demo.selection.branch_id} --reason "…"`,
    `selected ${demo.selection.branch_id} at fork revision ${demo.selection.fork_revision} (no git command ran)`,
    '',
    `$ citadel fork land ${id}`,
    renderLandingChecks(id, demo.checks, demo.token).trimEnd(),
    '',
    `$ citadel fork land ${id} --confirm ${demo.token}`,
    `landed: merge commit ${demo.mergeCommit} in the scratch repository (local merge only; nothing was pushed)`,
    '',
    renderForkStatus(status).trimEnd(),
    '',
    `Public replay: ${demo.replayFile}`,
    `Proof report:  ${demo.proofFile} (${demo.proofDigest})`,
    ...(demo.weakerKeyStore ? ['', 'note: no OS keychain answered (KEYCHAIN_UNAVAILABLE), so the demo signed with the weaker file key store.'] : []),
    '',
  ];
  io.stdout(lines.join('\n'));
}
