import { Command, CommanderError } from 'commander';
import { CitadelError } from '../../shared/errors';
import { demoCommand } from './commands/demo';
import { executorsValidate } from './commands/executors-validate';
import { executorsSets } from './commands/executors-sets';
import { registerForkCommands } from './commands/fork';
import { initCommand } from './commands/init';
import { registerMissionControlCommand } from './commands/mission-control';
import { runtimesCommand } from './commands/runtimes';
import { registerTrustCommands } from './commands/trust';
import { verifyCommand } from './commands/verify';
import { registerKeysCommands } from './commands/keys';
import { asCitadelError, EXIT_OK, EXIT_USAGE, printError, type Io } from './io/output';

export interface CliContext {
  readonly io: Io;
  readonly version: string;
}

/** Parses argv, runs one command and returns the process exit code (decisions D1). Never throws. */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  const json = argv.includes('--json');
  const { io } = context;
  const program = buildProgram(context, json);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
        return EXIT_OK;
      }
      const message = error.message.replace(/^error: /, '');
      if (json) printError(io, new CitadelError('USAGE_ERROR', message), true);
      return EXIT_USAGE;
    }
    return printError(io, asCitadelError(error), json);
  }
}

function buildProgram(context: CliContext, json: boolean): Command {
  const { io } = context;
  const program = new Command('citadel')
    .description('Run one engineering objective through several coding agents, compare the signed evidence, land deliberately.')
    .version(context.version, '-V, --version')
    .exitOverride()
    .showHelpAfterError(json ? false : '(run with --help for usage)')
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      // With --json, stdout carries the one JSON error document instead.
      outputError: (text, write) => (json ? undefined : write(text)),
    });

  const executors = program.command('executors').description('work with executor profile files');
  executors
    .command('validate')
    .description('validate an executor file; print profile digests, the executor set digest and each exact argv')
    .argument('<file>', 'executor file (JSON, schema_version 1)')
    .option('--json', 'print exactly one JSON document')
    .action((file: string, options: { json?: boolean }) => executorsValidate(io, file, { json: options.json === true }));
  executors
    .command('sets')
    .description("list the profile sets saved in Mission Control's New Fork; with NAME, print that set as an executor file")
    .argument('[name]', 'a saved set, printed as an executor file for `fork start --executors`')
    .option('--json', 'print exactly one JSON document')
    .action((name: string | undefined, options: { json?: boolean }) => executorsSets(io, name, { json: options.json === true }));

  initCommand(program, io);
  registerForkCommands(program, io);
  registerTrustCommands(program, io);
  registerKeysCommands(program, io);
  verifyCommand(program, io);
  registerMissionControlCommand(program, io);

  program
    .command('runtimes')
    .description('report each runtime executable, its version, credential presence (names only) and local model providers')
    .option('--json', 'print exactly one JSON document')
    .action((options: { json?: boolean }) => runtimesCommand(io, { json: options.json === true }));

  program
    .command('demo')
    .description('run a complete fork on a scratch repository with simulated claude and codex runtimes')
    .option('--json', 'print exactly one JSON document')
    .action((options: { json?: boolean }) => demoCommand(io, { json: options.json === true }));

  return program;
}
