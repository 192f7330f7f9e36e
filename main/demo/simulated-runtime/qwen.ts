import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { applyEdits, hang, runCommands, runGitOutcome, sleep } from './agent-actions';
import { flagValue, type SimulationIo } from './invocation';
import type { SimulatedBehaviour } from './scenario';

/**
 * Qwen Code 0.24.4, `--output-format stream-json` (recordings/qwen): its argv checks, event stream,
 * exit codes, and the session file `$QWEN_HOME/projects/<project>/chats/<session>.jsonl` whose
 * `qwen-code.api_response` events name the served model (the only place the real CLI names it).
 */

/** Not recorded: the model a real Qwen Code picks without `--model` or OPENAI_MODEL depends on its auth; this one is the simulation's own. */
const QWEN_DEFAULT_MODEL = 'qwen3-coder-plus';
const QWEN_APPROVAL_MODES = ['plan', 'default', 'auto-edit', 'auto', 'yolo'];
/** Modes in which headless Qwen Code offers its write tools (recordings: default offers none). */
const EDITING_MODES = ['auto-edit', 'yolo'];
const USAGE_PER_REQUEST = { input: 321, output: 54 };

export async function simulateQwen(argv: readonly string[], prompt: string, behaviour: SimulatedBehaviour, cwd: string, io: SimulationIo): Promise<number> {
  const mode = argv.includes('--yolo') ? 'yolo' : (flagValue(argv, '--approval-mode') ?? 'default');
  if (!QWEN_APPROVAL_MODES.includes(mode)) {
    io.stderr(`Invalid values:\n  Argument: approval-mode, Given: "${mode}", Choices: ${QWEN_APPROVAL_MODES.map((m) => `"${m}"`).join(', ')}\n`);
    return 1;
  }
  if (flagValue(argv, '--output-format') !== 'stream-json') {
    io.stderr('simulated qwen: only `--output-format stream-json` is simulated\n');
    return 2;
  }
  if (prompt.trim() === '') {
    io.stderr('No input provided via stdin. Input can be provided by piping data into qwen or using the --prompt option.\n');
    return 1;
  }
  const qwenHome = io.env.QWEN_HOME || (io.env.HOME ? path.join(io.env.HOME, '.qwen') : '');
  if (!path.isAbsolute(qwenHome)) {
    io.stderr('simulated qwen: cannot determine QWEN_HOME\n');
    return 1;
  }

  const requested = flagValue(argv, '--model') ?? (io.env.OPENAI_MODEL || QWEN_DEFAULT_MODEL);
  const served = behaviour.observed_model ?? requested;
  const sessionId = randomUUID();
  const session = await sessionFile(qwenHome, cwd, sessionId);
  await session.record({ type: 'user', message: { role: 'user', parts: [{ text: prompt }] } });
  const emit = (event: Record<string, unknown>): void => io.stdout(`${JSON.stringify({ ...event, session_id: sessionId })}\n`);
  const assistant = (content: Record<string, unknown>[], tokens: { input: number; output: number }): void =>
    emit({
      type: 'assistant',
      uuid: randomUUID(),
      parent_tool_use_id: null,
      message: { id: randomUUID(), type: 'message', role: 'assistant', model: requested, content, stop_reason: null, usage: { input_tokens: tokens.input, output_tokens: tokens.output } },
    });

  io.stdout(
    `${JSON.stringify({
      type: 'system',
      subtype: 'init',
      uuid: sessionId,
      session_id: sessionId,
      cwd,
      tools: ['read_file', 'grep_search', 'glob', ...(EDITING_MODES.includes(mode) ? ['edit', 'write_file'] : [])],
      mcp_servers: [],
      model: requested,
      permission_mode: mode,
      slash_commands: [],
      qwen_code_version: '0.24.4',
      agents: ['general-purpose'],
    })}\n`,
  );
  emit({ type: 'stream_event', uuid: randomUUID(), parent_tool_use_id: null, event: { type: 'goal_state', goal_state: { v: 2, goal: null, activity: 'idle' } } });

  const outcome = behaviour.outcome ?? 'success';
  const failure = providerFailure(outcome);
  if (failure !== null) {
    assistant([{ type: 'text', text: failure }], { input: 0, output: 0 });
    emit({ ...resultBase(1), type: 'result', subtype: 'error_during_execution', is_error: true, usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 }, permission_denials: [], error: { message: failure } });
    return behaviour.exit_code ?? 1;
  }

  // Headless, the write tools exist only in an editing mode: otherwise the model can only answer.
  const edits = EDITING_MODES.includes(mode) ? (behaviour.edits ?? []) : [];
  const slice = Math.floor((behaviour.delay_ms ?? 0) / (edits.length + 1));
  let requests = 0;
  const answered = async (): Promise<void> => {
    requests += 1;
    await session.record({
      type: 'system',
      subtype: 'ui_telemetry',
      systemPayload: { uiEvent: { 'event.name': 'qwen-code.api_response', response_id: `chatcmpl-simulated-${requests}`, model: served, status_code: 200, input_token_count: USAGE_PER_REQUEST.input, output_token_count: USAGE_PER_REQUEST.output } },
    });
  };
  for (const edit of edits) {
    const target = path.resolve(cwd, edit.path);
    const existed = (await stat(target).catch(() => null)) !== null;
    const callId = `call_simulated_${requests}`;
    await answered();
    assistant([{ type: 'text', text: 'I will write the file now.' }], { input: 0, output: 0 });
    assistant([{ type: 'tool_use', id: callId, name: 'write_file', input: { file_path: target, content: edit.content } }], USAGE_PER_REQUEST);
    await sleep(slice);
    await applyEdits(cwd, [edit]);
    const said = existed ? `Successfully overwrote file: ${target}.` : `Successfully created and wrote to new file: ${target}.`;
    emit({ type: 'user', uuid: randomUUID(), parent_tool_use_id: null, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, is_error: false, content: said }] } });
  }
  await runCommands(cwd, behaviour.commands ?? [], io.stderr);
  const gitRun = await runGitOutcome(outcome, cwd);
  if (gitRun !== null && gitRun.exitCode !== 0) {
    io.stderr(gitRun.output);
    return 1;
  }
  if (outcome === 'hang') {
    assistant([{ type: 'text', text: 'Working on it' }], { input: 0, output: 0 });
    return hang();
  }
  await sleep(slice);

  const message = edits.length > 0 ? 'Done: the requested changes are made.' : 'FAKE-REPLY: hello from the simulated Qwen Code.';
  await answered();
  if (outcome === 'unparsable') io.stdout('{"type":"assistant","uuid":"cut-off-mid-li\n');
  assistant([{ type: 'text', text: message }], USAGE_PER_REQUEST);
  // After a turn without tools Qwen Code sends its managed-memory extraction request (recordings/qwen/text), counted in result.usage.
  if (edits.length === 0) await answered();
  emit({
    ...resultBase(edits.length + 1),
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: message,
    usage: { input_tokens: USAGE_PER_REQUEST.input * requests, output_tokens: USAGE_PER_REQUEST.output * requests, cache_read_input_tokens: 0, total_tokens: (USAGE_PER_REQUEST.input + USAGE_PER_REQUEST.output) * requests },
    permission_denials: [],
  });
  return behaviour.exit_code ?? 0;
}

/** The error text of a provider failure as recorded (err401, err500); `no_server` was not recorded and is this simulation's own. */
function providerFailure(outcome: string): string | null {
  switch (outcome) {
    case 'auth_error':
      return '[API Error: 401 Incorrect API key provided (simulated 401).]';
    case 'api_error_500':
      return '[API Error: 500 The server had an error while processing your request (simulated 500).]';
    case 'no_server':
      return '[API Error: Connection error. (simulated; not recorded)]';
    default:
      return null;
  }
}

function resultBase(turns: number): Record<string, unknown> {
  return { uuid: randomUUID(), duration_ms: 900 * turns, duration_api_ms: 400 * turns, num_turns: turns };
}

/** Appends records to the run's session file, each with the fields the real one carries for its session and cwd. */
async function sessionFile(qwenHome: string, cwd: string, sessionId: string): Promise<{ record(fields: Record<string, unknown>): Promise<void> }> {
  const chats = path.join(qwenHome, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'), 'chats');
  await mkdir(chats, { recursive: true });
  const file = path.join(chats, `${sessionId}.jsonl`);
  let parent: string | null = null;
  return {
    async record(fields) {
      const uuid = randomUUID();
      const line = { uuid, parentUuid: parent, sessionId, timestamp: new Date().toISOString(), cwd, version: '0.24.4', ...fields };
      parent = uuid;
      await appendFile(file, `${JSON.stringify(line)}\n`);
    },
  };
}
