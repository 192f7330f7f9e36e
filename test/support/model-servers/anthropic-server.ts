import type { ServerResponse } from 'node:http';
import { sendJson, sendSse, startRecordingServer, type LoggedRequest, type RecordingServer } from './recording-server';

/** What the scripted model knows about the run it talks to, read from the CLI's own request. */
export interface ScriptContext {
  /** The working directory the CLI reported to the model ("Primary working directory: …"), or null. */
  readonly cwd: string | null;
}

export interface ToolCall {
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** One assistant message: text, and optionally one tool call (then stop_reason is `tool_use`). */
export interface ModelTurn {
  readonly text: string;
  readonly tool?: ToolCall;
}

export type ScriptedTurn = ModelTurn | ((context: ScriptContext) => ModelTurn);

export type AnthropicScenario =
  /** Turn n is sent once the conversation holds n tool results, so the script advances only when the CLI answered. */
  | { readonly kind: 'script'; readonly turns: readonly ScriptedTurn[] | ((context: ScriptContext) => readonly ScriptedTurn[]) }
  | { readonly kind: 'error'; readonly status: 401 | 500 };

export interface AnthropicServerOptions {
  readonly scenario: AnthropicScenario;
  /** `message_start.message.model`; by default the request's own model is echoed, as the real API does. */
  readonly responseModel?: string;
  /** Whether a request's credential is accepted; a refused one gets the API's 401. By default every request is. */
  readonly authorize?: (request: LoggedRequest) => boolean;
}

/** A tool result as the CLI sent it back to the model. */
export interface ToolResult {
  /** The conversation's working directory: tool ids repeat across concurrent runs. */
  readonly cwd: string | null;
  readonly tool_use_id: string;
  readonly content: string;
  readonly is_error: boolean;
}

export interface AnthropicServer extends RecordingServer {
  /** Every tool result the CLI sent, once each, in the order first seen. */
  toolResults(): ToolResult[];
}

const USAGE = { input_tokens: 123, output_tokens: 45 };

/**
 * A scripted Anthropic Messages API (`POST /v1/messages?beta=true`) on loopback. Claude Code always
 * asks for `stream: true` (recordings/claude/a_text), so replies are SSE in the documented order:
 * message_start, per content block start/delta/stop, message_delta (stop_reason, usage), message_stop.
 */
export async function startAnthropicServer(options: AnthropicServerOptions): Promise<AnthropicServer> {
  const server = await startRecordingServer((request, response) => {
    if (request.method !== 'POST' || !request.url.startsWith('/v1/messages')) {
      sendJson(response, 404, { type: 'error', error: { type: 'not_found_error', message: `no route ${request.method} ${request.url}` } });
      return;
    }
    if (options.authorize !== undefined && !options.authorize(request)) {
      sendJson(response, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
      return;
    }
    reply(options, request, response);
  });
  return { ...server, toolResults: () => toolResultsOf(server.requests()) };
}

function reply(options: AnthropicServerOptions, request: LoggedRequest, response: ServerResponse): void {
  const { scenario } = options;
  if (scenario.kind === 'error') {
    const error = scenario.status === 401 ? { type: 'authentication_error', message: 'invalid x-api-key (scripted)' } : { type: 'api_error', message: 'Internal server error (scripted)' };
    sendJson(response, scenario.status, { type: 'error', error });
    return;
  }
  const body = asRecord(request.body);
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const index = toolResultBlocks(messages).length;
  const context: ScriptContext = { cwd: cwdOf(body) };
  const scripted = (typeof scenario.turns === 'function' ? scenario.turns(context) : scenario.turns)[index];
  const turn: ModelTurn = scripted === undefined ? { text: 'Scripted conversation is over.' } : typeof scripted === 'function' ? scripted(context) : scripted;
  const model = options.responseModel ?? (typeof body.model === 'string' ? body.model : 'unknown-model');
  const id = `msg_scripted_${index}`;
  const content = [
    { type: 'text', text: turn.text },
    ...(turn.tool ? [{ type: 'tool_use', id: `toolu_scripted_${index}`, name: turn.tool.name, input: turn.tool.input }] : []),
  ];
  const stopReason = turn.tool ? 'tool_use' : 'end_turn';
  if (body.stream !== true) {
    sendJson(response, 200, { id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage: USAGE });
    return;
  }
  sendSse(response, [
    { event: 'message_start', data: { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: USAGE.input_tokens, output_tokens: 1 } } } },
    ...content.flatMap((block, blockIndex) => blockEvents(block, blockIndex)),
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: USAGE.output_tokens } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

/** A text block streams as text_delta; a tool_use block starts with empty input and streams its JSON as input_json_delta. */
function blockEvents(block: { type: string; text?: string; id?: string; name?: string; input?: unknown }, index: number): { event: string; data: unknown }[] {
  const start =
    block.type === 'text' ? { type: 'text', text: '' } : { type: 'tool_use', id: block.id, name: block.name, input: {} };
  const delta = block.type === 'text' ? { type: 'text_delta', text: block.text } : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
  return [
    { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
  ];
}

function toolResultBlocks(messages: readonly unknown[]): Record<string, unknown>[] {
  return messages.flatMap((message) => {
    const content = asRecord(message).content;
    return Array.isArray(content) ? content.map(asRecord).filter((block) => block.type === 'tool_result') : [];
  });
}

function toolResultsOf(requests: readonly LoggedRequest[]): ToolResult[] {
  const seen = new Map<string, ToolResult>();
  for (const request of requests) {
    const body = asRecord(request.body);
    const cwd = cwdOf(body);
    for (const block of toolResultBlocks(Array.isArray(body.messages) ? body.messages : [])) {
      const key = JSON.stringify([cwd, block.tool_use_id]);
      if (!seen.has(key)) seen.set(key, { cwd, tool_use_id: String(block.tool_use_id), content: textOf(block.content), is_error: block.is_error === true });
    }
  }
  return [...seen.values()];
}

/** tool_result content is a string or a list of text blocks. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => asRecord(part).text).filter((text) => typeof text === 'string').join('\n');
}

/** Claude Code tells the model its cwd in a system reminder (recordings/claude/b_tool_write/requests.jsonl). */
function cwdOf(body: Record<string, unknown>): string | null {
  const match = /Primary working directory: ([^\n\\]+)/.exec(JSON.stringify([body.system, body.messages]));
  return match?.[1]?.trim() ?? null;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
