import { fileURLToPath } from 'node:url';
import type { ForkEvent } from '../../../shared/fork/events';
import { forkStatusOf } from '../../../shared/fork/fork-status';
import { runDemo } from '../../demo/run-demo';
import { cliOrchestratorContext } from '../orchestrator-context';
import { printJson, type Io } from '../output';
import { describeEvent, renderForkStatus } from './render-fork';

/** Bundled beside the CLI (out/cli/simulated-runtime.mjs). */
const SIMULATED_RUNTIME = fileURLToPath(new URL('./simulated-runtime.mjs', import.meta.url));

export async function demoCommand(io: Io, options: { json: boolean }): Promise<void> {
  const events = options.json ? () => undefined : (event: ForkEvent) => io.stderr(describeEvent(event));
  if (!options.json) io.stdout('Citadel demo: one objective, two simulated executors, one verifier.\n\n');
  const demo = await runDemo({ context: (env, sink) => cliOrchestratorContext({ env, events: sink }), simulatedRuntimeModule: SIMULATED_RUNTIME }, process.env, events);
  const status = forkStatusOf(demo.record);
  if (options.json) {
    printJson(io, { ...status, weaker_key_store: demo.weakerKeyStore });
    return;
  }
  const lines = [
    '',
    renderForkStatus(status).trimEnd(),
    '',
    `Scratch repository: ${demo.repo} (its test fails until sum() adds)`,
    'The simulated claude fixed the bug; the simulated codex made a plausible wrong fix. The workflow verifier',
    '(node --test test/sum.test.js) ran in each worktree after the runtime exited, and each result is bound to an',
    'ed25519-signed execution receipt and fork receipt under the fork root.',
    ...(demo.weakerKeyStore ? ['', 'note: no OS keychain answered (KEYCHAIN_UNAVAILABLE), so the demo signed with the weaker file key store.'] : []),
    '',
    `Next: citadel fork status ${status.fork_id}    citadel fork clean ${status.fork_id}`,
    '',
  ];
  io.stdout(lines.join('\n'));
}
