import { stat } from 'node:fs/promises';
import path from 'node:path';
import { applyEdits, hang, insideGitRepository, runCommands, runGitOutcome, sleep } from './agent-actions';
import { startRollout, uuidV7 } from './codex-rollout';
import { flagValue, type SimulationIo } from './invocation';
import type { SimulatedBehaviour } from './scenario';

/** Codex 0.169.0, `exec --json`: its argv checks, event stream and exit codes. */

const CODEX_DEFAULT_MODEL = 'gpt-5.1-codex';
const CODEX_SANDBOXES = ['read-only', 'workspace-write', 'danger-full-access'];
const CODEX_RETRY_MESSAGE_500 = 'We’re currently experiencing high demand, which may cause temporary errors.';

export async function simulateCodex(argv: readonly string[], prompt: string, behaviour: SimulatedBehaviour, cwd: string, io: SimulationIo): Promise<number> {
  if (argv[0] !== 'exec' || !argv.includes('--json')) {
    io.stderr('simulated codex: only `codex exec --json` is simulated\n');
    return 2;
  }
  const sandbox = flagValue(argv, '--sandbox') ?? 'read-only';
  if (!CODEX_SANDBOXES.includes(sandbox)) {
    io.stderr(`error: invalid value '${sandbox}' for '--sandbox <SANDBOX_MODE>'\n  [possible values: ${CODEX_SANDBOXES.join(', ')}]\n\nFor more information, try '--help'.\n`);
    return 2;
  }
  if (!(await insideGitRepository(cwd))) {
    io.stderr('Not inside a trusted directory and --skip-git-repo-check was not specified.\n');
    return 1;
  }
  const provider = argv.includes('--oss') ? (flagValue(argv, '--local-provider') ?? 'ollama') : null;
  const outcome = behaviour.outcome ?? 'success';
  if (outcome === 'no_server') {
    io.stderr(
      provider === 'lmstudio'
        ? "Error: OSS setup failed: OSS setup failed: LM Studio is not responding. Install from https://lmstudio.ai/download and run 'lms server start'.\n"
        : 'Error: OSS setup failed: No running Ollama server detected. Start it with: `ollama serve` (after installing). Install instructions: https://github.com/ollama/ollama?tab=readme-ov-file#ollama\n',
    );
    return behaviour.exit_code ?? 1;
  }
  const codexHome = io.env.CODEX_HOME || (io.env.HOME ? path.join(io.env.HOME, '.codex') : '');
  if (!path.isAbsolute(codexHome)) {
    io.stderr('Error: cannot determine CODEX_HOME\n');
    return 1;
  }

  const requestedModel = flagValue(argv, '--model') ?? CODEX_DEFAULT_MODEL;
  const threadId = uuidV7(Date.now());
  const rollout = await startRollout({
    codexHome,
    threadId,
    cwd,
    prompt,
    sandbox,
    provider: provider ?? 'openai',
    model: behaviour.observed_model ?? requestedModel,
  });
  const emit = (event: Record<string, unknown>): void => io.stdout(`${JSON.stringify(event)}\n`);
  let itemNumber = 0;
  const nextItemId = (): string => `item_${itemNumber++}`;

  emit({ type: 'thread.started', thread_id: threadId });
  emit({
    type: 'item.completed',
    item: {
      id: nextItemId(),
      type: 'error',
      message: `Model metadata for \`${requestedModel}\` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.`,
    },
  });
  emit({ type: 'turn.started' });

  // The delay is spread over the run, as a real model's time is: each edit lands a slice after its
  // item starts, and the final slice comes before the turn completes, so the stream and the
  // worktree change while the run goes on.
  const edits = behaviour.edits ?? [];
  const slice = Math.floor((behaviour.delay_ms ?? 0) / (edits.length + 1));
  for (const edit of edits) {
    const target = path.resolve(cwd, edit.path);
    const kind = (await stat(target).catch(() => null)) === null ? 'add' : 'update';
    const id = nextItemId();
    emit({ type: 'item.started', item: { id, type: 'file_change', changes: [{ path: target, kind }], status: 'in_progress' } });
    await sleep(slice);
    await applyEdits(cwd, [edit]);
    emit({ type: 'item.completed', item: { id, type: 'file_change', changes: [{ path: target, kind }], status: 'completed' } });
  }
  await runCommands(cwd, behaviour.commands ?? [], io.stderr);
  const gitRun = await runGitOutcome(outcome, cwd);
  if (gitRun !== null) {
    const id = nextItemId();
    const command = `/bin/bash -lc "${gitRun.command}"`;
    emit({ type: 'item.started', item: { id, type: 'command_execution', command, aggregated_output: '', exit_code: null, status: 'in_progress' } });
    const status = gitRun.exitCode === 0 ? 'completed' : 'failed';
    emit({ type: 'item.completed', item: { id, type: 'command_execution', command, aggregated_output: gitRun.output, exit_code: gitRun.exitCode, status } });
  }
  if (outcome === 'hang') return hang();
  await sleep(slice);

  const requests = 1 + (behaviour.edits?.length ?? 0) + (gitRun === null ? 0 : 1);
  const completeTurn = async (): Promise<number> => {
    const message = 'Done (simulated model final message).';
    emit({ type: 'item.completed', item: { id: nextItemId(), type: 'agent_message', text: message } });
    emit({
      type: 'turn.completed',
      usage: { input_tokens: 321 * requests, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 54 * requests, reasoning_output_tokens: 0 },
    });
    await rollout.complete({ last_agent_message: message });
    return 0;
  };
  const failTurn = async (message: string, retryDetail: string): Promise<number> => {
    for (let attempt = 1; attempt <= 5; attempt += 1) emit({ type: 'error', message: `Reconnecting... ${attempt}/5 (${retryDetail})` });
    emit({ type: 'error', message });
    emit({ type: 'turn.failed', error: { message } });
    await rollout.complete({ last_agent_message: null, error: { message } });
    return 1;
  };

  let exitCode: number;
  switch (outcome) {
    case 'auth_error': {
      const url = provider === null ? 'https://api.openai.com/v1/responses' : 'http://localhost:11434/v1/responses';
      const message = `unexpected status 401 Unauthorized: simulated 401 error from model server, url: ${url}`;
      exitCode = await failTurn(message, message);
      break;
    }
    case 'api_error_500':
      exitCode = await failTurn(CODEX_RETRY_MESSAGE_500, CODEX_RETRY_MESSAGE_500);
      break;
    case 'unparsable':
      io.stdout('{"type":"item.completed","item":{"id":"item_9","type":"agent_mess\n');
      exitCode = await completeTurn();
      break;
    default:
      exitCode = await completeTurn();
  }
  return behaviour.exit_code ?? exitCode;
}
