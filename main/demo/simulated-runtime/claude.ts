import { randomUUID } from 'node:crypto';
import { applyEdits, hang, runCommands, runGitOutcome, sleep } from './agent-actions';
import { flagValue, type SimulationIo } from './invocation';
import type { SimulatedBehaviour, SimulatedOutcome } from './scenario';

/** Claude Code 2.1.328, `--print --output-format json`: its argv checks, result objects and exit codes. */

const CLAUDE_DEFAULT_MODEL = 'claude-sonnet-4-5';
const CLAUDE_PERMISSION_MODES = ['acceptEdits', 'auto', 'bypassPermissions', 'manual', 'dontAsk', 'plan'];

export async function simulateClaude(argv: readonly string[], prompt: string, behaviour: SimulatedBehaviour, cwd: string, io: SimulationIo): Promise<number> {
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

  // The delay is spread over the run: each edit lands a slice after the last, the final slice comes before the result.
  const edits = behaviour.edits ?? [];
  const slice = Math.floor((behaviour.delay_ms ?? 0) / (edits.length + 1));
  for (const edit of edits) {
    await sleep(slice);
    await applyEdits(cwd, [edit]);
  }
  await runCommands(cwd, behaviour.commands ?? [], io.stderr);
  const outcome = behaviour.outcome ?? 'success';
  const gitRun = await runGitOutcome(outcome, cwd);
  if (gitRun !== null && gitRun.exitCode !== 0) {
    io.stderr(gitRun.output);
    return 1;
  }
  if (outcome === 'hang') return hang();
  await sleep(slice);

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
