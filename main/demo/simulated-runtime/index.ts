import { readFile, realpath } from 'node:fs/promises';
import type { z } from 'zod';
import { simulateClaude } from './claude';
import { simulateCodex } from './codex';
import { simulateGemini } from './gemini';
import { simulateQwen } from './qwen';
import { simulateOpencode } from './opencode';
import { simulateCopilot } from './copilot';
import type { SimulationIo } from './invocation';
import { SimulationScenarioSchema, type SimulatedBehaviour, type SimulatedRuntimeId } from './scenario';

/**
 * Stand-ins for the runtimes' CLIs (`claude`, `codex`, `gemini`, `qwen`, `opencode`, …), for Citadel's demo and for tests. They are installed as
 * executables named `claude`/`codex` first on PATH (installSimulatedRuntimes), read the prompt on
 * stdin, really edit files in their cwd, and print stdout and exit codes in exactly the shapes
 * recorded from Claude Code 2.1.328, Codex 0.169.0 and OpenCode 1.18.33 (recordings/). The simulated Codex also writes
 * a real rollout file under `$CODEX_HOME/sessions/YYYY/MM/DD/`, like the real one.
 *
 * This module is the entry esbuild bundles to out/cli/simulated-runtime.mjs; the installed wrappers
 * import it and call runSimulatedRuntime(…, processSimulationIo(…)). The scenario file's format is
 * in ./scenario.ts.
 */

export { installSimulatedRuntimes } from './install';
export { processSimulationIo } from './invocation';
export type { SimulationScenario } from './scenario';

/** The vendor version each simulator prints the recorded output of, as `--version` reports it (readiness asks). */
const SIMULATED_VERSIONS: Readonly<Record<SimulatedRuntimeId, string>> = {
  claude: '2.1.328 (Claude Code)',
  codex: 'codex-cli 0.169.0',
  gemini: '0.61.0',
  qwen: '0.24.4',
  opencode: '1.18.33',
  copilot: '1.0.102',
};

/** Runs one simulated CLI invocation; resolves to its exit code (never, for "hang"). */
export async function runSimulatedRuntime(runtime: SimulatedRuntimeId, argv: readonly string[], io: SimulationIo): Promise<number> {
  if (argv.length === 1 && argv[0] === '--version') {
    io.stdout(`${SIMULATED_VERSIONS[runtime]} (Citadel simulated)\n`);
    return 0;
  }
  let prompt = '';
  for await (const chunk of io.stdin) prompt += chunk.toString();
  let scenario: z.infer<typeof SimulationScenarioSchema>;
  try {
    scenario = SimulationScenarioSchema.parse(JSON.parse(await readFile(io.scenarioFile, 'utf8')));
  } catch (error) {
    io.stderr(`simulated ${runtime}: cannot use ${io.scenarioFile}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const { claude, codex, gemini, qwen, opencode, copilot, ...shared } = scenario;
  const own = { claude, codex, gemini, qwen, opencode, copilot }[runtime];
  const behaviour: SimulatedBehaviour = { ...shared, ...own };
  return SIMULATORS[runtime](argv, prompt, behaviour, await realpath(io.cwd), io);
}

type Simulator = (argv: readonly string[], prompt: string, behaviour: SimulatedBehaviour, cwd: string, io: SimulationIo) => Promise<number>;

const SIMULATORS: Readonly<Record<SimulatedRuntimeId, Simulator>> = {
  claude: simulateClaude,
  codex: simulateCodex,
  gemini: simulateGemini,
  qwen: simulateQwen,
  opencode: simulateOpencode,
  copilot: simulateCopilot,
};
