import { chmod, copyFile, mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CitadelError } from '../../../shared/errors';
import { SIMULATED_RUNTIME_IDS, SIMULATION_FILE_NAME, SimulationScenarioSchema, type SimulatedRuntimeId, type SimulationScenario } from './scenario';

/** Where the build puts this module (out/cli/simulated-runtime.mjs) when it is bundled next to the CLI. */
const BUILT_SIMULATED_RUNTIME_PATH = fileURLToPath(new URL('./simulated-runtime.mjs', import.meta.url));

/** The bundle's name inside the bin dir, beside the wrappers that import it. */
const INSTALLED_MODULE_NAME = 'simulated-runtime.mjs';

/**
 * Writes one wrapper per simulated runtime, named like its CLI (mode 0755), a copy of the bundled
 * simulated runtime they import, and the scenario file into binDir. The install is self-contained so that a
 * contained branch, which sees only its runtime's own directory and Node, can run it.
 */
export async function installSimulatedRuntimes(
  binDir: string,
  scenario: SimulationScenario,
  nodeExecPath: string = process.execPath,
  entryModulePath: string = BUILT_SIMULATED_RUNTIME_PATH,
): Promise<Record<SimulatedRuntimeId, string> & { scenarioFile: string }> {
  const parsed = SimulationScenarioSchema.safeParse(scenario);
  if (!parsed.success) throw new CitadelError('INTERNAL_ERROR', `invalid simulation scenario: ${parsed.error.message}`);
  // A shebang line is split at whitespace and bounded in length by the kernel.
  if (!path.isAbsolute(nodeExecPath) || /\s/.test(nodeExecPath) || nodeExecPath.length > 200) {
    throw new CitadelError('INTERNAL_ERROR', `cannot use ${nodeExecPath} in a #! line`);
  }
  const entryIsFile = path.isAbsolute(entryModulePath) && (await stat(entryModulePath).catch(() => null))?.isFile() === true;
  if (!entryIsFile) throw new CitadelError('INTERNAL_ERROR', `the simulated runtime module ${entryModulePath} is not built`);

  await mkdir(binDir, { recursive: true });
  const scenarioFile = path.join(binDir, SIMULATION_FILE_NAME);
  await writeFile(scenarioFile, `${JSON.stringify(parsed.data, null, 2)}\n`);
  await copyFile(entryModulePath, path.join(binDir, INSTALLED_MODULE_NAME));
  const written = Object.fromEntries(SIMULATED_RUNTIME_IDS.map((runtime) => [runtime, path.join(binDir, runtime)])) as Record<SimulatedRuntimeId, string>;
  for (const runtime of SIMULATED_RUNTIME_IDS) {
    // Extensionless, so Node may load it as CommonJS or ESM: only dynamic import() works in both.
    const wrapper = [
      `#!${nodeExecPath}`,
      `// Citadel's simulated ${runtime} (demo and tests), not the vendor CLI.`,
      // Relative to the wrapper itself (argv[1]), so the bin dir alone holds the runtime.
      `import('node:url')`,
      `  .then((url) => import(new URL(${JSON.stringify(`./${INSTALLED_MODULE_NAME}`)}, url.pathToFileURL(process.argv[1])).href))`,
      `  .then((m) => m.runSimulatedRuntime(${JSON.stringify(runtime)}, process.argv.slice(2), m.processSimulationIo(process.argv[1])))`,
      `  .then((code) => { process.exitCode = code; }, (error) => { process.stderr.write(String(error) + '\\n'); process.exitCode = 70; });`,
      '',
    ].join('\n');
    await writeFile(written[runtime], wrapper);
    await chmod(written[runtime], 0o755);
  }
  return { ...written, scenarioFile };
}
