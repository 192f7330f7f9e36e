import type { WireRefusal } from '../../../shared/runtime/wire';
import type { GatewayApi } from '../../../shared/sandbox/containment-policy';
import { recordedModel } from './answer-witness';

export type BodyVerdict = { readonly allowed: true; readonly requestedModel: string | null } | { readonly allowed: false; readonly refusal: WireRefusal; readonly requestedModel: string | null };

type Json = Record<string, unknown>;

/**
 * Anthropic tools the client runs itself (the CLI executes them in the sandbox): a tool without a
 * type or of type `custom` is the caller's own; bash, text editor, computer use and memory are
 * schemas Anthropic defines for the client to execute. Every other typed tool runs on Anthropic's
 * side (web search, web fetch, code execution, tool search, MCP toolsets, and any added later) and
 * could reach a URL the prompt names, so only these pass.
 */
const ANTHROPIC_CLIENT_TOOL = /^(?:custom|bash_\d{8}|text_editor_\d{8}|computer_\d{8}|memory_\d{8})$/;

/**
 * OpenAI Responses tools the client runs itself: functions and custom (freeform) tools, the local
 * shell and apply_patch tools; a `namespace` groups tools and passes when all of its tools do.
 * Hosted tools (mcp, file_search, code_interpreter, image_generation, computer_use*, web_search*)
 * are refused, except two Codex 0.169.0 sends on every request for catalogued models (recording
 * codex-cloud/a10): `web_search` with `external_web_access: false`, which searches OpenAI's cached
 * index and fetches no live URL, and `tool_search` with `execution: client`, which Codex runs itself.
 */
const OPENAI_CLIENT_TOOL = new Set(['function', 'custom', 'local_shell', 'shell', 'apply_patch']);

/**
 * Checks a request body the gateway is about to forward (already parsed JSON): the model must be
 * one of `models` (null: any), and nothing in it may make the provider act beyond answering:
 * Anthropic's `mcp_servers` connector, server-side tools, or an OpenAI response run in the background
 * (it would go on after the gateway stopped witnessing, unbudgeted).
 */
export function judgeRequestBody(api: GatewayApi, body: unknown, models: readonly string[] | null): BodyVerdict {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { allowed: false, refusal: 'body_unparsable', requestedModel: null };
  const request = body as Json;
  const requestedModel = recordedModel(request['model']);
  const refuse = (refusal: WireRefusal): BodyVerdict => ({ allowed: false, refusal, requestedModel });
  const tools = request['tools'];
  if (tools !== undefined && !Array.isArray(tools)) return refuse('body_unparsable');
  if (api === 'anthropic-messages') {
    if (request['mcp_servers'] !== undefined) return refuse('mcp_servers_refused');
    if (!(tools ?? []).every(isAnthropicClientTool)) return refuse('server_tool_refused');
  } else {
    if (!(tools ?? []).every(isOpenAiClientTool)) return refuse('server_tool_refused');
    if (request['background'] !== undefined && request['background'] !== false) return refuse('server_tool_refused');
  }
  if (models !== null && (typeof request['model'] !== 'string' || !models.includes(request['model']))) return refuse('model_not_allowed');
  return { allowed: true, requestedModel };
}

function isAnthropicClientTool(tool: unknown): boolean {
  if (typeof tool !== 'object' || tool === null) return false;
  const type = (tool as Json)['type'];
  return type === undefined || (typeof type === 'string' && ANTHROPIC_CLIENT_TOOL.test(type));
}

function isOpenAiClientTool(tool: unknown): boolean {
  if (typeof tool !== 'object' || tool === null) return false;
  const entry = tool as Json;
  const type = entry['type'];
  if (typeof type !== 'string') return false;
  if (OPENAI_CLIENT_TOOL.has(type)) return true;
  if (type === 'namespace') return Array.isArray(entry['tools']) && entry['tools'].every(isOpenAiClientTool);
  if (type === 'tool_search') return entry['execution'] === 'client';
  return type === 'web_search' && entry['external_web_access'] === false;
}
