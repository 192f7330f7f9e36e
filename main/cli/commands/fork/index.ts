import type { Command } from 'commander';
import type { Io } from '../../io/output';
import { attestCommand } from '../attest';
import { cleanCommand } from './clean';
import { compareCommand } from './compare';
import { landCommand } from './land';
import { logsCommand } from './logs';
import { proofCommand } from './proof';
import { replayCommand } from './replay';
import { resolveCommand } from './resolve';
import { resumeCommand } from './resume';
import { selectCommand } from './select';
import { startCommand } from './start';
import { statusCommand } from './status';
import { stopCommand } from './stop';

/** In the order `citadel fork --help` lists them. */
const SUBCOMMANDS = [startCommand, statusCommand, logsCommand, resumeCommand, stopCommand, resolveCommand, compareCommand, selectCommand, landCommand, replayCommand, proofCommand, attestCommand, cleanCommand];

/** `citadel fork …` (decisions D13): each subcommand parses, calls one orchestrator door function, renders. */
export function registerForkCommands(program: Command, io: Io): void {
  const fork = program.command('fork').description('run one objective through several executors and manage the result');
  for (const register of SUBCOMMANDS) register(fork, io);
}
