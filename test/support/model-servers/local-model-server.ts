import type { ServerResponse } from 'node:http';
import { sendJson, sendSse, startRecordingServer, type LoggedRequest, type LoopbackAddress, type RecordingServer } from './recording-server';

/** What the scripted model knows about the run, read from Codex's own request. */
export interface ScriptContext {
  /** The `<cwd>` Codex put in its environment context, or null. */
  readonly cwd: string | null;
}

/** One model response: final text, or a call of Codex's `exec_command` tool with a shell command. */
export type LocalTurn = { readonly text: string } | { readonly cmd: string };

export type ScriptedLocalTurn = LocalTurn | ((context: ScriptContext) => LocalTurn);

export type LocalScenario =
  /** Turn n is sent once the input holds n function_call_output items: the script advances only when Codex answered. */
  | { readonly kind: 'script'; readonly turns: readonly ScriptedLocalTurn[] | ((context: ScriptContext) => readonly ScriptedLocalTurn[]) }
  /** Every `/v1/responses` call fails with this status; the discovery endpoints keep working. */
  | { readonly kind: 'error'; readonly status: 401 | 500 };

export interface LocalModelServerOptions {
  readonly scenario: LocalScenario;
  /** Models served by `/api/tags` and `/v1/models`. */
  readonly models?: readonly string[];
  readonly ollamaVersion?: string;
  /** LM Studio can only be reached on its fixed port; everything else uses port 0. */
  readonly port?: number;
  /** 127.0.0.1 unless a test stands in for a provider on another machine (e.g. 127.0.0.2). */
  readonly host?: LoopbackAddress;
  /** The model the Responses stream names; by default the request's own model is echoed, as Ollama does. */
  readonly responseModel?: string;
}

/** A function call's output as Codex sent it back. */
export interface FunctionOutput {
  /** The conversation's working directory: call ids repeat across concurrent runs. */
  readonly cwd: string | null;
  readonly call_id: string;
  readonly output: string;
}

export interface LocalModelServer extends RecordingServer {
  /** Every exec_command output Codex sent back, once each, in the order first seen. */
  functionOutputs(): FunctionOutput[];
}

const DEFAULT_LOCAL_MODELS = ['qwen3-coder:30b', 'qwen3-coder-30b'] as const;
const USAGE = { input_tokens: 321, input_tokens_details: { cached_tokens: 0 }, output_tokens: 54, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 375 };

/**
 * A scripted local model server that answers like Ollama (`/api/version`, `/api/tags`, `/api/pull`)
 * and LM Studio (`/v1/models`), and serves the Responses API that Codex's `--oss` providers use
 * (`POST /v1/responses`, SSE), including LM Studio's non-streaming warm-up (`max_output_tokens: 1`).
 */
export async function startLocalModelServer(options: LocalModelServerOptions): Promise<LocalModelServer> {
  const models = options.models ?? DEFAULT_LOCAL_MODELS;
  const server = await startRecordingServer((request, response) => {
    const route = `${request.method} ${request.url.split('?')[0]}`;
    switch (route) {
      case 'GET /api/version':
        return sendJson(response, 200, { version: options.ollamaVersion ?? '0.13.5' });
      case 'GET /api/tags':
        return sendJson(response, 200, { models: models.map((name) => ({ name, model: name, modified_at: '2026-01-01T00:00:00Z', size: 1, digest: 'scripted', details: {} })) });
      case 'POST /api/pull':
        return sendJson(response, 200, { status: 'success' });
      case 'GET /v1/models':
        return sendJson(response, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted' })) });
      case 'POST /v1/responses':
        return respond(options.scenario, request, response, options.responseModel);
      default:
        return sendJson(response, 404, { error: { message: `no route ${route}` } });
    }
  }, options.port ?? 0, options.host);
  return { ...server, functionOutputs: () => functionOutputsOf(server.requests()) };
}

function respond(scenario: LocalScenario, request: LoggedRequest, response: ServerResponse, responseModel: string | undefined): void {
  if (scenario.kind === 'error') {
    const message = scenario.status === 401 ? 'scripted 401 error from model server' : 'scripted 500 error from model server';
    sendJson(response, scenario.status, { error: { message, type: scenario.status === 401 ? 'invalid_request_error' : 'server_error', code: null } });
    return;
  }
  const body = asRecord(request.body);
  if (body.stream !== true) {
    // LM Studio's warm-up (`input: ""`, `max_output_tokens: 1`) is not part of the conversation: a plain JSON response.
    const output = [{ type: 'message', id: 'msg_warmup', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok', annotations: [] }] }];
    sendJson(response, 200, { id: 'resp_warmup', object: 'response', status: 'completed', model: responseModel ?? body.model, output, usage: USAGE });
    return;
  }
  const input = Array.isArray(body.input) ? body.input.map(asRecord) : [];
  const index = input.filter((item) => item.type === 'function_call_output').length;
  const context: ScriptContext = { cwd: cwdOf(input) };
  const scripted = (typeof scenario.turns === 'function' ? scenario.turns(context) : scenario.turns)[index];
  const turn: LocalTurn = scripted === undefined ? { text: 'Scripted conversation is over.' } : typeof scripted === 'function' ? scripted(context) : scripted;
  const responseId = `resp_scripted_${index}`;
  const item =
    'cmd' in turn
      ? { type: 'function_call', id: `fc_scripted_${index}`, call_id: `call_scripted_${index}`, name: 'exec_command', arguments: JSON.stringify({ cmd: turn.cmd }), status: 'completed' }
      : { type: 'message', id: `msg_scripted_${index}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] };
  const model = responseModel ?? (typeof body.model === 'string' ? body.model : 'unknown-model');
  const added = item.type === 'message' ? { ...item, status: 'in_progress', content: [] } : { ...item, status: 'in_progress', arguments: '' };
  sendSse(response, [
    { event: 'response.created', data: { type: 'response.created', response: { id: responseId, object: 'response', status: 'in_progress', model } } },
    { event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: 0, item: added } },
    ...('text' in turn ? [{ event: 'response.output_text.delta', data: { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: turn.text } }] : []),
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
    { event: 'response.completed', data: { type: 'response.completed', response: { id: responseId, object: 'response', status: 'completed', model, output: [item], usage: USAGE } } },
  ]);
}

function functionOutputsOf(requests: readonly LoggedRequest[]): FunctionOutput[] {
  const seen = new Map<string, FunctionOutput>();
  for (const request of requests) {
    const input = asRecord(request.body).input;
    if (!Array.isArray(input)) continue;
    const items = input.map(asRecord);
    const cwd = cwdOf(items);
    for (const item of items) {
      if (item.type !== 'function_call_output') continue;
      const key = JSON.stringify([cwd, item.call_id]);
      if (!seen.has(key)) seen.set(key, { cwd, call_id: String(item.call_id), output: typeof item.output === 'string' ? item.output : JSON.stringify(item.output) });
    }
  }
  return [...seen.values()];
}

/** Codex sends `<environment_context><cwd>…</cwd>…` as a user message (recordings/codex/b1_shell/requests.jsonl). */
function cwdOf(input: readonly Record<string, unknown>[]): string | null {
  const match = /<cwd>([^<]+)<\/cwd>/.exec(JSON.stringify(input));
  return match?.[1] ?? null;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
