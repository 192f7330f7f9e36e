import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { applyEdits, hang, insideGitRepository, runCommands, runGitOutcome, sleep } from './agent-actions';
import { flagValue, type SimulationIo } from './invocation';
import type { SimulatedBehaviour } from './scenario';

/**
 * GitHub Copilot CLI 1.0.102, `--output-format json` in offline BYOK mode (recordings/copilot): its
 * JSONL events, its session's events.jsonl under COPILOT_HOME (the only place besides
 * `--usage-output-file` with its tokens) and its exit codes. Every event names the requested model
 * (`--model`, else COPILOT_MODEL): the real CLI never shows the one the provider served, so
 * `observed_model` changes nothing here. Without `--allow-all-tools` every tool call is denied, as
 * recorded (no_allow_all_tools_edit). "no_server" was not recorded: it is simulated as a query error.
 */

const USAGE = { inputTokens: 321, outputTokens: 54 };
const AUTH_ATTEMPTS = 3;
const SERVER_ERROR_ATTEMPTS = 6;
const DENIED = 'Permission denied because no interactive user response was available. Retry in an interactive session so the user can approve it, or rerun with the needed permissions.';

export async function simulateCopilot(argv: readonly string[], prompt: string, behaviour: SimulatedBehaviour, cwd: string, io: SimulationIo): Promise<number> {
  if (flagValue(argv, '--output-format') !== 'json') {
    io.stderr('simulated copilot: only `copilot --output-format json` is simulated\n');
    return 2;
  }
  const copilotHome = io.env.COPILOT_HOME || (io.env.HOME ? path.join(io.env.HOME, '.copilot') : '');
  if (!path.isAbsolute(copilotHome) || !(await insideGitRepository(cwd))) {
    io.stderr('simulated copilot: needs COPILOT_HOME or HOME, and a git repository as its cwd\n');
    return 1;
  }
  const model = flagValue(argv, '--model') ?? io.env.COPILOT_MODEL ?? 'gpt-4.1';
  const toolsAllowed = argv.includes('--allow-all-tools') || argv.includes('--allow-all') || argv.includes('--yolo');
  const outcome = behaviour.outcome ?? 'success';
  const sessionId = randomUUID();
  const sessionDir = path.join(copilotHome, 'session-state', sessionId);
  await mkdir(sessionDir, { recursive: true });
  const record = (type: string, data: Record<string, unknown>): Promise<void> =>
    appendFile(path.join(sessionDir, 'events.jsonl'), `${JSON.stringify({ type, data, id: randomUUID(), timestamp: new Date().toISOString() })}\n`);
  const emit = (type: string, data: Record<string, unknown>): void => io.stdout(`${JSON.stringify({ type, data, id: randomUUID(), timestamp: new Date().toISOString() })}\n`);
  const started = Date.now();
  let requests = 0;
  const modelCall = async (turnId: string): Promise<void> => {
    requests += 1;
    emit('model.call_start', { turnId, model });
    emit('model.call_final_result', { model, isByok: true, result: 'success' });
    await record('session.usage_record', { usage: { model, ...USAGE, cacheReadTokens: 0, cacheWriteTokens: 0, isByok: true, providerType: 'openai' } });
  };
  const finish = async (exitCode: number, filesModified: string[]): Promise<number> => {
    emit('assistant.idle', {});
    await record('session.shutdown', { accountingSnapshot: { modelMetrics: { [model]: { requests: { count: requests, cost: 0 }, usage: { inputTokens: USAGE.inputTokens * requests, outputTokens: USAGE.outputTokens * requests } } } } });
    const usage = { premiumRequests: 0, totalApiDurationMs: 40 * requests, sessionDurationMs: Date.now() - started, codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified } };
    io.stdout(`${JSON.stringify({ type: 'result', timestamp: new Date().toISOString(), sessionId, exitCode, usage })}\n`);
    return behaviour.exit_code ?? exitCode;
  };

  await record('session.start', { sessionId, selectedModel: model, context: { cwd } });
  emit('session.tools_updated', { model });
  emit('user.message', { content: prompt });
  await record('user.message', { content: prompt });

  if (outcome === 'auth_error' || outcome === 'api_error_500' || outcome === 'no_server') {
    const status = outcome === 'auth_error' ? 401 : outcome === 'api_error_500' ? 500 : null;
    const attempts = outcome === 'auth_error' ? AUTH_ATTEMPTS : SERVER_ERROR_ATTEMPTS;
    emit('assistant.turn_start', { turnId: '0' });
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      emit('model.call_failure', { model, statusCode: status, retryAttempt: attempt, failureKind: status === null ? 'network' : 'api', isByok: true });
      if (attempt < attempts - 1) emit('session.info', { infoType: 'model_retry', message: 'Request failed due to a transient API error. Retrying...' });
    }
    emit('model.call_final_result', { model, isByok: true, result: status === 401 ? 'http_4xx' : status === 500 ? 'http_5xx' : 'network_error' });
    emit(
      'session.error',
      status === 401
        ? { errorType: 'authentication', statusCode: 401, message: 'Authentication failed with provider (HTTP 401).\n  Check your COPILOT_PROVIDER_API_KEY, COPILOT_PROVIDER_API_KEY_COMMAND, or COPILOT_PROVIDER_BEARER_TOKEN.' }
        : { errorType: 'query', ...(status === null ? {} : { statusCode: status }), message: `Failed to get response from the AI model; retried ${attempts - 1} times. Last error: ${status ?? 'fetch failed'}` },
    );
    emit('assistant.turn_end', { turnId: '0' });
    return finish(1, []);
  }

  const edits = behaviour.edits ?? [];
  const slice = Math.floor((behaviour.delay_ms ?? 0) / (edits.length + 1));
  const written: string[] = [];
  let turn = 0;
  for (const edit of edits) {
    const turnId = String(turn++);
    const target = path.resolve(cwd, edit.path);
    const exists = (await stat(target).catch(() => null)) !== null;
    const toolName = exists ? 'edit' : 'create';
    const toolCallId = `call_simulated_${turnId}`;
    emit('assistant.turn_start', { turnId });
    await modelCall(turnId);
    emit('assistant.message', { model, content: '', toolRequests: [{ toolCallId, name: toolName, arguments: { path: target } }], turnId });
    emit('tool.execution_start', { toolCallId, toolName, arguments: { path: target }, turnId, model });
    await sleep(slice);
    if (toolsAllowed) {
      await applyEdits(cwd, [edit]);
      written.push(target);
      emit('tool.execution_complete', { toolCallId, model, turnId, success: true, fileEdits: [{ path: target, kind: exists ? 'edit' : 'create' }], result: { content: `${exists ? 'Edited' : 'Created'} file ${target}` } });
    } else {
      emit('tool.execution_complete', { toolCallId, model, turnId, success: false, error: { code: 'denied', message: DENIED } });
    }
    emit('assistant.turn_end', { turnId });
  }
  await runCommands(cwd, behaviour.commands ?? [], io.stderr);
  const gitRun = await runGitOutcome(outcome, cwd);
  if (gitRun !== null) {
    const turnId = String(turn++);
    const toolCallId = `call_simulated_${turnId}`;
    emit('assistant.turn_start', { turnId });
    await modelCall(turnId);
    emit('tool.execution_start', { toolCallId, toolName: 'bash', arguments: { command: gitRun.command, description: 'Run git' }, turnId, model });
    emit('tool.execution_complete', { toolCallId, model, turnId, success: true, result: { content: gitRun.output } });
    emit('assistant.turn_end', { turnId });
  }
  const turnId = String(turn);
  if (outcome === 'hang') {
    // As recorded (cancel_*): the last turn's stream starts, then the model goes silent.
    emit('assistant.turn_start', { turnId });
    emit('model.call_start', { turnId, model });
    emit('assistant.message_delta', { deltaContent: 'Working on it' });
    return hang();
  }
  await sleep(slice);

  emit('assistant.turn_start', { turnId });
  await modelCall(turnId);
  if (outcome === 'unparsable') io.stdout('{"type":"assistant.message_delta","data":{"deltaContent":"Do\n');
  const message = 'Done (simulated model final message).';
  emit('assistant.message', { model, content: message, toolRequests: [], turnId });
  await record('assistant.message', { model, content: message });
  emit('assistant.turn_end', { turnId });
  return finish(0, written);
}
