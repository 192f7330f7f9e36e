import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFile, chmod, mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { CitadelError } from '../../shared/errors';

/**
 * Stand-ins for the `claude` and `codex` CLIs, for Citadel's demo and for tests. They are installed as
 * executables named `claude`/`codex` first on PATH (installSimulatedRuntimes), read the prompt on
 * stdin, really edit files in their cwd, and print stdout and exit codes in exactly the shapes
 * recorded from Claude Code 2.1.328 and Codex 0.169.0 (recordings/). The simulated Codex also writes
 * a real rollout file under `$CODEX_HOME/sessions/YYYY/MM/DD/`, like the real one.
 *
 * The scenario is the JSON file `citadel-simulation.json` beside the executables (the runtime's
 * environment is allowlisted by Citadel, so it cannot carry one):
 *
 *   {
 *     "outcome": "success",          // SIMULATED_OUTCOMES; default "success"
 *     "edits": [{ "path": "src/a.ts", "content": "…" }],
 *                                    // written relative to the cwd before the outcome plays out, for
 *                                    // every outcome; ".." may deliberately leave the cwd
 *     "exit_code": 0,                // replaces the recorded exit code of the outcome
 *     "delay_ms": 0,                 // waited after the edits, before the final output
 *     "observed_model": "…",         // the model the runtime reports instead of the requested one
 *     "claude": { … }, "codex": { … } // the same fields for one runtime, over the top-level ones
 *   }
 *
 * Outcomes: "success"; "auth_error" (HTTP 401), "api_error_500", "no_server" (Claude: connection
 * refused; Codex: OSS setup failure on stderr, empty stdout) as recorded; "unparsable" (Claude: its
 * result cut off; Codex: a garbled event line mid-stream); "hang" (after the edits, waits until
 * killed); "git_checkout" / "git_commit" / "git_worktree_add" (really run that git command in the
 * cwd, then report success) to trigger Citadel's containment checks.
 */

export const SIMULATED_OUTCOMES = [
  'success',
  'auth_error',
  'api_error_500',
  'unparsable',
  'no_server',
  'hang',
  'git_checkout',
  'git_commit',
  'git_worktree_add',
] as const;
export type SimulatedOutcome = (typeof SIMULATED_OUTCOMES)[number];

const SimulatedBehaviourShape = {
  outcome: z.enum(SIMULATED_OUTCOMES).optional(),
  edits: z
    .array(z.strictObject({ path: z.string().min(1).refine((p) => !path.isAbsolute(p), 'relative to the cwd'), content: z.string() }))
    .optional(),
  exit_code: z.number().int().min(0).max(255).optional(),
  delay_ms: z.number().int().min(0).max(3_600_000).optional(),
  observed_model: z.string().min(1).optional(),
};
const SimulatedBehaviourSchema = z.strictObject(SimulatedBehaviourShape);
export const SimulationScenarioSchema = z.strictObject({
  ...SimulatedBehaviourShape,
  claude: SimulatedBehaviourSchema.optional(),
  codex: SimulatedBehaviourSchema.optional(),
});
export type SimulationScenario = z.input<typeof SimulationScenarioSchema>;
type Behaviour = z.infer<typeof SimulatedBehaviourSchema>;

export type SimulatedRuntimeId = 'claude' | 'codex';

export const SIMULATION_FILE_NAME = 'citadel-simulation.json';
/** Where the build puts this module (out/cli/simulated-runtime.mjs) when it is bundled next to the CLI. */
export const BUILT_SIMULATED_RUNTIME_PATH = fileURLToPath(new URL('./simulated-runtime.mjs', import.meta.url));

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

/** Runs one simulated CLI invocation; resolves to its exit code (never, for "hang"). */
export async function runSimulatedRuntime(runtime: SimulatedRuntimeId, argv: readonly string[], io: SimulationIo): Promise<number> {
  let prompt = '';
  for await (const chunk of io.stdin) prompt += chunk.toString();
  let scenario: z.infer<typeof SimulationScenarioSchema>;
  try {
    scenario = SimulationScenarioSchema.parse(JSON.parse(await readFile(io.scenarioFile, 'utf8')));
  } catch (error) {
    io.stderr(`simulated ${runtime}: cannot use ${io.scenarioFile}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const { claude, codex, ...shared } = scenario;
  const behaviour: Behaviour = { ...shared, ...(runtime === 'claude' ? claude : codex) };
  const cwd = await realpath(io.cwd);
  return runtime === 'claude' ? simulateClaude(argv, prompt, behaviour, cwd, io) : simulateCodex(argv, prompt, behaviour, cwd, io);
}

/** Writes the `claude` and `codex` wrappers (mode 0755) and the scenario file into binDir. */
export async function installSimulatedRuntimes(
  binDir: string,
  scenario: SimulationScenario,
  nodeExecPath: string = process.execPath,
  entryModulePath: string = BUILT_SIMULATED_RUNTIME_PATH,
): Promise<{ claude: string; codex: string; scenarioFile: string }> {
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
  const written = { claude: path.join(binDir, 'claude'), codex: path.join(binDir, 'codex') };
  for (const runtime of ['claude', 'codex'] as const) {
    // Extensionless, so Node may load it as CommonJS or ESM: only dynamic import() works in both.
    const wrapper = [
      `#!${nodeExecPath}`,
      `// Citadel's simulated ${runtime} (demo and tests), not the vendor CLI.`,
      `import(${JSON.stringify(pathToFileURL(entryModulePath).href)})`,
      `  .then((m) => m.runSimulatedRuntime(${JSON.stringify(runtime)}, process.argv.slice(2), m.processSimulationIo(process.argv[1])))`,
      `  .then((code) => { process.exitCode = code; }, (error) => { process.stderr.write(String(error) + '\\n'); process.exitCode = 70; });`,
      '',
    ].join('\n');
    await writeFile(written[runtime], wrapper);
    await chmod(written[runtime], 0o755);
  }
  return { ...written, scenarioFile };
}

// ---- Claude Code 2.1.328, `--print --output-format json` ----

const CLAUDE_DEFAULT_MODEL = 'claude-sonnet-4-5';
const CLAUDE_PERMISSION_MODES = ['acceptEdits', 'auto', 'bypassPermissions', 'manual', 'dontAsk', 'plan'];

async function simulateClaude(argv: readonly string[], prompt: string, behaviour: Behaviour, cwd: string, io: SimulationIo): Promise<number> {
  const mode = flagValue(argv, '--permission-mode');
  if (mode !== undefined && !CLAUDE_PERMISSION_MODES.includes(mode)) {
    io.stderr(`error: option '--permission-mode <mode>' argument '${mode}' is invalid. Allowed choices are ${CLAUDE_PERMISSION_MODES.join(', ')}.\n`);
    return 1;
  }
  const bypass = mode === 'bypassPermissions' || argv.includes('--dangerously-skip-permissions');
  if (bypass && process.getuid?.() === 0 && io.env.IS_SANDBOX !== '1') {
    io.stderr('--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n');
    return 1;
  }
  if (!argv.includes('--print') || prompt.trim() === '') {
    io.stderr('Error: Input must be provided either through stdin or as a prompt argument when using --print\n');
    return 1;
  }

  await applyEdits(cwd, behaviour.edits ?? []);
  const outcome = behaviour.outcome ?? 'success';
  const gitRun = await runGitOutcome(outcome, cwd);
  if (gitRun !== null && gitRun.exitCode !== 0) {
    io.stderr(gitRun.output);
    return 1;
  }
  if (outcome === 'hang') return hang();
  await sleep(behaviour.delay_ms ?? 0);

  const model = behaviour.observed_model ?? flagValue(argv, '--model') ?? CLAUDE_DEFAULT_MODEL;
  const turns = 1 + (behaviour.edits?.length ?? 0) + (gitRun === null ? 0 : 1);
  const { text, exitCode } = claudeOutput(outcome, model, turns);
  io.stdout(text);
  return behaviour.exit_code ?? exitCode;
}

function claudeOutput(outcome: Exclude<SimulatedOutcome, 'hang'>, model: string, turns: number): { text: string; exitCode: number } {
  const line = (result: Record<string, unknown>): string => `${JSON.stringify(result)}\n`;
  switch (outcome) {
    case 'auth_error':
      return {
        text: line(claudeErrorResult({ api_error_status: 401, api_error_type: 'authentication_error', result: 'Invalid API key · Fix external API key' })),
        exitCode: 1,
      };
    case 'api_error_500':
      return {
        text: line(
          claudeErrorResult({
            api_error_status: 500,
            api_error_type: 'api_error',
            result: 'API Error: 500 Internal server error (fake). This is a server-side issue, usually temporary — try again in a moment.',
          }),
        ),
        exitCode: 1,
      };
    case 'no_server':
      return {
        text: line(
          claudeErrorResult({
            api_error_status: null,
            api_error: 'connection_failed',
            result: 'API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)',
          }),
        ),
        exitCode: 1,
      };
    case 'unparsable':
      // Cut off mid-object, as when the process dies while printing.
      return { text: line(claudeSuccessResult(model, turns)).slice(0, 400), exitCode: 0 };
    default:
      return { text: line(claudeSuccessResult(model, turns)), exitCode: 0 };
  }
}

const CLAUDE_SUBAGENT_STATS = {
  spawned: 0,
  requested: { background: 0, foreground: 0, unset: 0 },
  started_in_background: 0,
  max_depth: 0,
  spawned_by_subagents: 0,
  completed: 0,
  failed: 0,
  killed: { parent: 0, user: 0, system: 0 },
  refused: { depth_limit: 0, concurrency_limit: 0, budget: 0 },
  by_type: {},
};

function claudeUsage(inputTokens: number, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: outputTokens,
    output_tokens_details: { thinking_tokens: 0 },
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: 'standard',
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
    inference_geo: '',
    iterations: [],
    speed: 'standard',
    fallback_credit: null,
  };
}

/** Key order and values as in recordings/claude/a_text/stdout.txt, scaled by the number of turns. */
function claudeSuccessResult(model: string, turns: number): Record<string, unknown> {
  const inputTokens = 123 * turns;
  const outputTokens = 45 * turns;
  const cost = Number((0.001044 * turns).toFixed(6));
  return {
    duration_api_ms: 88 * turns,
    stop_reason: 'end_turn',
    session_id: randomUUID(),
    total_cost_usd: cost,
    usage: claudeUsage(inputTokens, outputTokens),
    modelUsage: {
      [model]: {
        inputTokens,
        outputTokens,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
        webSearchRequests: 0,
        costUSD: cost,
        contextWindow: 200000,
        maxOutputTokens: 32000,
        thinkingTokens: 0,
        cacheCreationEphemeral5mInputTokens: 0,
        cacheCreationEphemeral1hInputTokens: 0,
        canonicalModel: model,
        provider: 'firstParty',
        costBasis: 'list',
      },
    },
    permission_denials: [],
    terminal_reason: 'completed',
    fast_mode_state: 'off',
    fast_mode_disabled_reason: 'sdk_opt_in_required',
    subagent_stats: CLAUDE_SUBAGENT_STATS,
    safety_stops: 0,
    is_error: false,
    num_turns: turns,
    subtype: 'success',
    api_error_status: null,
    result: turns > 1 ? 'Done: the requested changes are made.' : 'FAKE-REPLY: hello from the simulated Claude Code.',
    ttft_ms: 269,
    type: 'result',
    duration_ms: 280 * turns,
    uuid: randomUUID(),
    ttft_stream_ms: 269,
    time_to_request_ms: 198,
    first_content_frame_ms: 269,
    queued_turn_count: 0,
    result_index: 0,
  };
}

/** Every recorded error result: subtype still "success", is_error true, zero usage and cost, empty modelUsage. */
function claudeErrorResult(error: Record<string, unknown>): Record<string, unknown> {
  return {
    duration_api_ms: 0,
    stop_reason: 'stop_sequence',
    session_id: randomUUID(),
    total_cost_usd: 0,
    usage: claudeUsage(0, 0),
    modelUsage: {},
    permission_denials: [],
    terminal_reason: 'api_error',
    fast_mode_state: 'off',
    fast_mode_disabled_reason: 'sdk_opt_in_required',
    subagent_stats: CLAUDE_SUBAGENT_STATS,
    safety_stops: 0,
    is_error: true,
    num_turns: 1,
    subtype: 'success',
    ...error,
    type: 'result',
    duration_ms: 312,
    uuid: randomUUID(),
    queued_turn_count: 0,
    result_index: 0,
  };
}

// ---- Codex 0.169.0, `exec --json` ----

const CODEX_DEFAULT_MODEL = 'gpt-5.1-codex';
const CODEX_SANDBOXES = ['read-only', 'workspace-write', 'danger-full-access'];
const CODEX_RETRY_MESSAGE_500 = 'We’re currently experiencing high demand, which may cause temporary errors.';

async function simulateCodex(argv: readonly string[], prompt: string, behaviour: Behaviour, cwd: string, io: SimulationIo): Promise<number> {
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

  for (const edit of behaviour.edits ?? []) {
    const target = path.resolve(cwd, edit.path);
    const kind = (await stat(target).catch(() => null)) === null ? 'add' : 'update';
    const id = nextItemId();
    emit({ type: 'item.started', item: { id, type: 'file_change', changes: [{ path: target, kind }], status: 'in_progress' } });
    await applyEdits(cwd, [edit]);
    emit({ type: 'item.completed', item: { id, type: 'file_change', changes: [{ path: target, kind }], status: 'completed' } });
  }
  const gitRun = await runGitOutcome(outcome, cwd);
  if (gitRun !== null) {
    const id = nextItemId();
    const command = `/bin/bash -lc "${gitRun.command}"`;
    emit({ type: 'item.started', item: { id, type: 'command_execution', command, aggregated_output: '', exit_code: null, status: 'in_progress' } });
    const status = gitRun.exitCode === 0 ? 'completed' : 'failed';
    emit({ type: 'item.completed', item: { id, type: 'command_execution', command, aggregated_output: gitRun.output, exit_code: gitRun.exitCode, status } });
  }
  if (outcome === 'hang') return hang();
  await sleep(behaviour.delay_ms ?? 0);

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

interface RolloutStart {
  codexHome: string;
  threadId: string;
  cwd: string;
  prompt: string;
  sandbox: string;
  provider: string;
  model: string;
}

/** A rollout as Codex writes it: `{timestamp, ordinal, type, payload}` lines in a local-date folder. */
async function startRollout(start: RolloutStart): Promise<{ complete(result: Record<string, unknown>): Promise<void> }> {
  const now = new Date();
  const pad = (n: number): string => String(n).padStart(2, '0');
  const [year, month, day] = [String(now.getFullYear()), pad(now.getMonth() + 1), pad(now.getDate())];
  const stamp = `${year}-${month}-${day}T${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}`;
  const dir = path.join(start.codexHome, 'sessions', year, month, day);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `rollout-${stamp}-${start.threadId}.jsonl`);
  const turnId = uuidV7(now.getTime());
  let ordinal = 0;
  const append = (type: string, payload: Record<string, unknown>): Promise<void> =>
    appendFile(file, `${JSON.stringify({ timestamp: new Date().toISOString(), ordinal: ordinal++, type, payload })}\n`);

  await append('session_meta', {
    session_id: start.threadId,
    id: start.threadId,
    timestamp: now.toISOString(),
    cwd: start.cwd,
    runtime_workspace_roots: [start.cwd],
    originator: 'codex_exec',
    cli_version: '0.169.0',
    source: 'exec',
    thread_source: 'user',
    model_provider: start.provider,
  });
  await append('event_msg', { type: 'task_started', turn_id: turnId, root_turn_id: turnId, started_at: Math.floor(now.getTime() / 1000) });
  await append('turn_context', {
    turn_id: turnId,
    root_turn_id: turnId,
    disabled_plugin_ids: [],
    cwd: start.cwd,
    approval_policy: 'never',
    approvals_reviewer: 'user',
    model: start.model,
    summary: 'auto',
    sandbox_policy: { type: start.sandbox },
  });
  await append('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: start.prompt }] });
  return {
    complete: (result) =>
      append('event_msg', { type: 'task_complete', root_turn_id: turnId, turn_id: turnId, ...result, duration_ms: Date.now() - now.getTime() }),
  };
}

// ---- shared by both simulations ----

async function applyEdits(cwd: string, edits: readonly { path: string; content: string }[]): Promise<void> {
  for (const edit of edits) {
    const target = path.resolve(cwd, edit.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, edit.content);
  }
}

interface GitRun {
  command: string;
  exitCode: number;
  output: string;
}

/** Really runs the git command an outcome names; null for outcomes without one. */
async function runGitOutcome(outcome: SimulatedOutcome, cwd: string): Promise<GitRun | null> {
  const suffix = randomBytes(4).toString('hex');
  const identity = ['-c', 'user.name=Simulated Agent', '-c', 'user.email=simulated-agent@citadel.invalid'];
  switch (outcome) {
    case 'git_checkout':
      return git(cwd, ['checkout', '-b', `simulated-checkout-${suffix}`]);
    case 'git_commit': {
      const added = await git(cwd, ['add', '-A']);
      return added.exitCode === 0 ? git(cwd, [...identity, 'commit', '--allow-empty', '-m', 'simulated agent commit']) : added;
    }
    case 'git_worktree_add':
      return git(cwd, ['worktree', 'add', '-b', `simulated-worktree-${suffix}`, `${cwd}-simulated-worktree-${suffix}`]);
    default:
      return null;
  }
}

function git(cwd: string, args: readonly string[]): Promise<GitRun> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ command: ['git', ...args].join(' '), exitCode: code, output: stdout + stderr });
    });
  });
}

async function insideGitRepository(cwd: string): Promise<boolean> {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    if ((await stat(path.join(dir, '.git')).catch(() => null)) !== null) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

function flagValue(argv: readonly string[], flag: string): string | undefined {
  const index = argv.indexOf(flag);
  return index === -1 ? undefined : argv[index + 1];
}

/** RFC 9562 version 7: a 48-bit millisecond timestamp, then random bits (Codex thread ids are v7). */
function uuidV7(ms: number): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes.writeUInt8((bytes.readUInt8(6) & 0x0f) | 0x70, 6);
  bytes.writeUInt8((bytes.readUInt8(8) & 0x3f) | 0x80, 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until the process is killed, like a runtime stuck on a model call. */
function hang(): Promise<never> {
  return new Promise(() => setInterval(() => undefined, 60_000));
}
