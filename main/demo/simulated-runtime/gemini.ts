import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { applyEdits, hang, runCommands, runGitOutcome, sleep } from './agent-actions';
import { flagValue, type SimulationIo } from './invocation';
import type { SimulatedBehaviour } from './scenario';

/**
 * Gemini CLI 0.61.0, `-p … -o stream-json` (recordings/gemini): its argv, trust and auth checks,
 * stream-json events and exit codes. Synthetic, not recorded: the served model without `-m`, and the
 * `no_server` outcome's message and exit code.
 */

const GEMINI_APPROVAL_MODES = ['default', 'auto_edit', 'yolo', 'plan'];
/** Without `-m` Gemini CLI routes between models itself; the simulation says which one served. */
const GEMINI_AUTO_MODEL = 'auto-gemini-2.5';
const GEMINI_DEFAULT_SERVED_MODEL = 'gemini-2.5-pro';
/** Headless, only these modes offer the model an edit or write tool (recordings/gemini/edit_approval_default). */
const EDITING_MODES = ['auto_edit', 'yolo'];
const STDERR_WARNINGS = 'Warning: 256-color support not detected. Using a terminal with at least 256-color support is recommended for a better visual experience.\nRipgrep is not available. Falling back to GrepTool.\n';

export async function simulateGemini(argv: readonly string[], prompt: string, behaviour: SimulatedBehaviour, cwd: string, io: SimulationIo): Promise<number> {
  const mode = flagValue(argv, '--approval-mode') ?? 'default';
  if (!GEMINI_APPROVAL_MODES.includes(mode)) {
    io.stderr(`Invalid values:\n  Argument: approval-mode, Given: "${mode}", Choices: ${GEMINI_APPROVAL_MODES.map((m) => `"${m}"`).join(', ')}\n`);
    return 1;
  }
  if (!argv.includes('-p') || flagValue(argv, '-o') !== 'stream-json') {
    io.stderr('simulated gemini: only `gemini -p … -o stream-json` is simulated\n');
    return 2;
  }
  if (!argv.includes('--skip-trust') && io.env.GEMINI_CLI_TRUST_WORKSPACE !== 'true') {
    io.stderr(
      'Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode.\n',
    );
    return 55;
  }
  // With GOOGLE_GEMINI_BASE_URL set, the auth type must come from the settings (recordings/gemini/no_auth_settings).
  if (io.env.GOOGLE_GEMINI_BASE_URL && (await selectedAuthType(io.env)) !== 'gemini-api-key') {
    io.stderr(`${STDERR_WARNINGS}Invalid auth method selected.\n`);
    return 41;
  }
  const input = `${prompt}${flagValue(argv, '-p') ?? ''}`;
  if (input.trim() === '') {
    io.stderr('No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.\n');
    return 42;
  }

  const requested = flagValue(argv, '-m');
  const emit = (event: Record<string, unknown>): void => io.stdout(`${JSON.stringify({ type: event.type, timestamp: new Date().toISOString(), ...event })}\n`);
  const say = (text: string): void => {
    const half = Math.ceil(text.length / 2);
    for (const part of [text.slice(0, half), text.slice(half)]) emit({ type: 'message', role: 'assistant', content: part, delta: true });
  };
  io.stderr(STDERR_WARNINGS);
  emit({ type: 'init', session_id: randomUUID(), model: requested ?? GEMINI_AUTO_MODEL });
  emit({ type: 'message', role: 'user', content: input });

  // Each edit is one request: a preamble and a write_file call, which the CLI refuses outside the workspace.
  const edits = EDITING_MODES.includes(mode) ? (behaviour.edits ?? []) : [];
  const slice = Math.floor((behaviour.delay_ms ?? 0) / (edits.length + 1));
  let toolCalls = 0;
  for (const edit of edits) {
    const target = path.resolve(cwd, edit.path);
    const toolId = `write_file__write_file_${Date.now()}_${toolCalls}`;
    toolCalls += 1;
    say('I will write the file now.');
    emit({ type: 'tool_use', tool_name: 'write_file', tool_id: toolId, parameters: { file_path: target, content: edit.content } });
    await sleep(slice);
    if (outsideOf(cwd, target)) {
      const message = `Path not in workspace: Attempted path "${target}" resolves outside the allowed workspace directories: ${cwd}`;
      io.stderr(`Error executing tool write_file: ${message}\n`);
      emit({ type: 'tool_result', tool_id: toolId, status: 'error', output: message, error: { type: 'invalid_tool_params', message } });
      continue;
    }
    await applyEdits(cwd, [edit]);
    emit({ type: 'tool_result', tool_id: toolId, status: 'success' });
  }
  await runCommands(cwd, behaviour.commands ?? [], io.stderr);
  const outcome = behaviour.outcome ?? 'success';
  // Test-only: a git command as a shell tool call (a real Gemini CLI offers run_shell_command headless in yolo only).
  const gitRun = await runGitOutcome(outcome, cwd);
  if (gitRun !== null) {
    const toolId = `run_shell_command_${Date.now()}_${toolCalls}`;
    toolCalls += 1;
    emit({ type: 'tool_use', tool_name: 'run_shell_command', tool_id: toolId, parameters: { command: gitRun.command } });
    emit({ type: 'tool_result', tool_id: toolId, status: gitRun.exitCode === 0 ? 'success' : 'error', output: gitRun.output });
  }
  if (outcome === 'hang') {
    say('Working on it');
    // Stopped, Gemini CLI exits 0 without a result line (recordings/gemini/cancel_sigterm, cancel_sigint).
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => process.exit(0));
    return hang();
  }
  await sleep(slice);

  const requests = 1 + edits.length + (gitRun === null ? 0 : 1);
  const stats = (model: string, measured: boolean): Record<string, unknown> => {
    const usage = { total_tokens: measured ? 375 * requests : 0, input_tokens: measured ? 321 * requests : 0, output_tokens: measured ? 54 * requests : 0, cached: 0, input: measured ? 321 * requests : 0 };
    return { ...usage, duration_ms: measured ? 50 * requests : 0, tool_calls: toolCalls, models: { [model]: usage } };
  };
  const served = behaviour.observed_model ?? requested ?? GEMINI_DEFAULT_SERVED_MODEL;
  const apiError = (code: number, status: string, message: string, exitCode: number): number => {
    const body = JSON.stringify({ error: { code, message, status } });
    io.stderr(`Error when talking to Gemini API _ApiError: ${body}\n`);
    emit({ type: 'result', status: 'error', error: { type: 'unknown', message: `[API Error: ${body}]` }, stats: stats(requested ?? GEMINI_AUTO_MODEL, false) });
    return exitCode;
  };

  let exitCode: number;
  switch (outcome) {
    case 'auth_error':
      // The HTTP status mod 256 (recordings/gemini/err401).
      exitCode = apiError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials (simulated 401).', 145);
      break;
    case 'api_error_500':
      for (let attempt = 1; attempt < 10; attempt += 1) io.stderr(`Attempt ${attempt} failed with status 500. Retrying with backoff... _ApiError: {"error":{"code":500}}\n`);
      exitCode = apiError(500, 'INTERNAL', 'Internal error encountered (simulated 500).', 244);
      break;
    case 'no_server':
      io.stderr('Error when talking to Gemini API TypeError: fetch failed\n');
      emit({ type: 'result', status: 'error', error: { type: 'unknown', message: '[API Error: exception TypeError: fetch failed sending request]' }, stats: stats(requested ?? GEMINI_AUTO_MODEL, false) });
      exitCode = 1;
      break;
    case 'unparsable': {
      say('Done (simulated model final message).');
      const result = JSON.stringify({ type: 'result', timestamp: new Date().toISOString(), status: 'success', stats: stats(served, true) });
      io.stdout(result.slice(0, Math.floor(result.length / 2)));
      exitCode = 0;
      break;
    }
    default:
      say('Done (simulated model final message).');
      emit({ type: 'result', status: 'success', stats: stats(served, true) });
      exitCode = 0;
  }
  return behaviour.exit_code ?? exitCode;
}

function outsideOf(dir: string, target: string): boolean {
  const relative = path.relative(dir, target);
  return relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
}

/** `security.auth.selectedType` from `$GEMINI_CLI_HOME/.gemini/settings.json` (else `$HOME/.gemini`); null when unreadable. */
async function selectedAuthType(env: Readonly<Record<string, string | undefined>>): Promise<string | null> {
  const home = env.GEMINI_CLI_HOME || env.HOME;
  if (!home) return null;
  try {
    const settings: unknown = JSON.parse(await readFile(path.join(home, '.gemini', 'settings.json'), 'utf8'));
    const selected = (settings as { security?: { auth?: { selectedType?: unknown } } } | null)?.security?.auth?.selectedType;
    return typeof selected === 'string' ? selected : null;
  } catch {
    return null;
  }
}
