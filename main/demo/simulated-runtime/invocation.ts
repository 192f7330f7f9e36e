import path from 'node:path';
import { SIMULATION_FILE_NAME } from './scenario';

/** What one simulated CLI invocation sees: its standard streams, cwd, environment, scenario file and argv. */

export interface SimulationIo {
  readonly stdin: AsyncIterable<string | Buffer>;
  stdout(text: string): void;
  stderr(text: string): void;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly scenarioFile: string;
}

/** The real process as a SimulationIo; the scenario file sits beside the executable that was run. */
export function processSimulationIo(executablePath: string): SimulationIo {
  return {
    stdin: process.stdin,
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    scenarioFile: path.join(path.dirname(path.resolve(executablePath)), SIMULATION_FILE_NAME),
  };
}

export function flagValue(argv: readonly string[], flag: string): string | undefined {
  const index = argv.indexOf(flag);
  return index === -1 ? undefined : argv[index + 1];
}
