import type { Command } from 'commander';
import type { BranchOutput, OutputText } from '../../../../shared/fork/branch-output';
import { openOrchestratorContext } from '../../../host/open-context';
import { branchLog, branchOutput } from '../../../orchestrator';
import { displayArgv, printJson, type Io } from '../../io/output';
import type { JsonOption } from './fork-output';

/** `citadel fork logs FORK_ID BRANCH_ID [--which LOG]`: the ends of what a branch printed, or one log in full. */
export function logsCommand(fork: Command, io: Io): void {
  fork
    .command('logs')
    .description("show the end of a branch's runtime, setup and verifier output, or one log in full with --which")
    .argument('<fork_id>')
    .argument('<branch_id>')
    .option('--which <log>', 'one log in full: stdout, stderr, setup:STEP_ID or verifier:STEP')
    .option('--json', 'print exactly one JSON document')
    .action(async (forkId: string, branchId: string, options: JsonOption & { which?: string }) => {
      const ctx = await openOrchestratorContext();
      if (options.which !== undefined) {
        const log = await branchLog(ctx, forkId, branchId, options.which);
        if (options.json) printJson(io, log);
        else io.stdout(renderLog(log.log, log));
        return;
      }
      const output = await branchOutput(ctx, forkId, branchId);
      if (options.json) printJson(io, output);
      else io.stdout(renderOutput(output));
    });
}

function renderOutput(output: BranchOutput): string {
  const exit = output.runtime.exit;
  const ended = exit === null ? 'has not ended' : exit.spawn_error !== null ? `could not start (${exit.spawn_error})` : `exited ${exit.code ?? exit.signal ?? '?'}`;
  return [
    `${output.branch_id} attempt ${output.attempt}: each log's last ${output.tail_limit.lines} lines (at most ${output.tail_limit.bytes / 1024} KiB); --which LOG shows one in full`,
    renderLog(`runtime stdout (the runtime ${ended})`, output.runtime.stdout),
    output.runtime.dropped_bytes === null ? '' : `   (past its logs' limit the runtime printed ${output.runtime.dropped_bytes.stdout} more bytes on stdout and ${output.runtime.dropped_bytes.stderr} on stderr: not kept)\n`,
    renderLog('runtime stderr', output.runtime.stderr),
    ...output.setup.map((s) => renderLog(`setup ${s.step_id}${s.argv === null ? '' : ` (${displayArgv(s.argv)})`}: ${s.status ?? 'no record'}${s.exit_code === null ? '' : `, exit ${s.exit_code}`}`, s.output)),
    ...output.verifier.map((v) => renderLog(`verifier ${v.step}${v.argv === null ? '' : ` (${displayArgv(v.argv)})`}: ${v.status ?? 'no record'}${v.exit_code === null ? '' : `, exit ${v.exit_code}`}`, v.output)),
    output.explains === null ? '' : `the failure is explained by: ${output.explains}\n`,
  ].join('');
}

function renderLog(title: string, text: OutputText): string {
  const head = `== ${title} [${text.log}]${text.truncated ? ' (earlier lines left out)' : ''}${text.hidden_lines > 0 ? ` (${text.hidden_lines} hidden as secret-like)` : ''}\n`;
  if (!text.present) return `${head}   (nothing kept)\n`;
  return `${head}${text.text === '' ? '   (empty)' : text.text}\n`;
}
