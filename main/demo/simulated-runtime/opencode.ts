import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { applyEdits, hang, runCommands, runGitOutcome, sleep } from './agent-actions';
import type { SimulationIo } from './invocation';
import type { SimulatedBehaviour } from './scenario';

/**
 * OpenCode 1.18.33, `run --format json` (recordings/opencode): its event lines, each with the
 * session id, per-step tokens 321/54 as the scripted server answered, and its exit codes. The
 * model is never printed, so a scenario's `observed_model` changes nothing here. `no_server` is
 * not recorded: it prints the recorded error shape without a status code (synthetic).
 */

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(length: number): string {
  return [...randomBytes(length)].map((byte) => BASE62[byte % 62]).join('');
}

export async function simulateOpencode(argv: readonly string[], prompt: string, behaviour: SimulatedBehaviour, cwd: string, io: SimulationIo): Promise<number> {
  if (argv[0] !== 'run' || argv[1] !== '--format' || argv[2] !== 'json') {
    io.stderr('simulated opencode: only `opencode run --format json` is simulated\n');
    return 2;
  }
  if (['--auto', '--yolo', '--dangerously-skip-permissions'].some((flag) => argv.includes(flag))) {
    io.stderr('simulated opencode: Citadel never approves every permission; refusing a bypass flag\n');
    return 2;
  }
  if (prompt.trim() === '') {
    io.stderr('Error: You must provide a message or a command\n');
    return 1;
  }
  const sessionID = `ses_${randomBytes(6).toString('hex')}${base62(14)}`;
  const newId = (prefix: string): string => `${prefix}_${randomBytes(6).toString('hex')}${base62(14)}`;
  const emit = (type: string, fields: Record<string, unknown>): void => io.stdout(`${JSON.stringify({ type, timestamp: Date.now(), sessionID, ...fields })}\n`);
  const snapshot = randomBytes(20).toString('hex');
  let messageID = newId('msg');
  const part = (type: string, fields: Record<string, unknown> = {}): Record<string, unknown> => ({ id: newId('prt'), messageID, sessionID, type, ...fields });
  const finishStep = (reason: 'stop' | 'tool-calls'): void =>
    emit('step_finish', { part: part('step-finish', { reason, snapshot, tokens: { total: 375, input: 321, output: 54, reasoning: 0, cache: { write: 0, read: 0 } }, cost: 0 }) });
  const text = (value: string): void => emit('text', { part: part('text', { text: value, time: { start: Date.now(), end: Date.now() } }) });
  const tool = (name: string, input: Record<string, unknown>, output: string, title: string): void => {
    const now = Date.now();
    emit('tool_use', { part: { ...part('tool'), tool: name, callID: `call_${base62(8)}`, state: { status: 'completed', input, output, metadata: {}, title, time: { start: now, end: now } } } });
  };

  const outcome = behaviour.outcome ?? 'success';
  if (outcome === 'auth_error' || outcome === 'api_error_500' || outcome === 'no_server') {
    await applyEdits(cwd, behaviour.edits ?? []);
    emit('error', { error: providerError(outcome) });
    return behaviour.exit_code ?? 1;
  }

  emit('step_start', { part: part('step-start', { snapshot }) });
  if (outcome === 'hang') {
    await applyEdits(cwd, behaviour.edits ?? []);
    return hang();
  }
  const edits = behaviour.edits ?? [];
  const slice = Math.floor((behaviour.delay_ms ?? 0) / (edits.length + 1));
  if (edits.length > 0) text('I will write the file now.');
  for (const edit of edits) {
    await sleep(slice);
    await applyEdits(cwd, [edit]);
    const filePath = path.resolve(cwd, edit.path);
    tool('write', { filePath, content: edit.content }, 'Wrote file successfully.', path.basename(filePath));
  }
  await runCommands(cwd, behaviour.commands ?? [], io.stderr);
  const gitRun = await runGitOutcome(outcome, cwd);
  if (gitRun !== null) tool('bash', { command: gitRun.command, description: 'Run git' }, gitRun.output, gitRun.command);
  if (outcome === 'unparsable') io.stdout('{"type":"text","timestamp":1796531436095,"sessionID":"ses_cut","part":{"id":"prt_cut","type":"te\n');
  await sleep(slice);
  if (edits.length > 0 || gitRun !== null) {
    finishStep('tool-calls');
    messageID = newId('msg');
    emit('step_start', { part: part('step-start', { snapshot }) });
  }
  text('Done (simulated model final message).');
  finishStep('stop');
  return behaviour.exit_code ?? 0;
}

/** The recorded `error` event (err401, err500); a refused connection is synthetic: the same shape without a status. */
function providerError(outcome: 'auth_error' | 'api_error_500' | 'no_server'): Record<string, unknown> {
  const url = 'http://127.0.0.1:3129/v1/chat/completions';
  if (outcome === 'no_server') return { name: 'APIError', data: { message: 'Cannot connect to API: connect ECONNREFUSED', isRetryable: true, metadata: { url } } };
  const [statusCode, message, type, code] =
    outcome === 'auth_error'
      ? [401, 'Incorrect API key provided (simulated 401).', 'invalid_request_error', 'invalid_api_key']
      : [500, 'The server had an error while processing your request (simulated 500).', 'server_error', null];
  const responseBody = JSON.stringify({ error: { message, type, param: null, code } });
  return { name: 'APIError', data: { message, statusCode, isRetryable: statusCode === 500, responseHeaders: { 'content-type': 'application/json' }, responseBody, metadata: { url } } };
}
