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
  if (namesFetchedUrl(api, request)) return refuse('server_tool_refused');
  if (models !== null && (typeof request['model'] !== 'string' || !models.includes(request['model']))) return refuse('model_not_allowed');
  return { allowed: true, requestedModel };
}

function isAnthropicClientTool(tool: unknown): boolean {
  if (typeof tool !== 'object' || tool === null) return false;
  const type = (tool as Json)['type'];
  return type === undefined || (typeof type === 'string' && ANTHROPIC_CLIENT_TOOL.test(type));
}

/** Walked without recursion: namespaces nested without end must be refused, not overflow the stack. */
function isOpenAiClientTool(tool: unknown): boolean {
  const pending: unknown[] = [tool];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) return false;
    const entry = next as Json;
    const type = entry['type'];
    if (typeof type !== 'string') return false;
    if (OPENAI_CLIENT_TOOL.has(type)) continue;
    if (type === 'namespace' && Array.isArray(entry['tools'])) pending.push(...(entry['tools'] as unknown[]));
    else if (type === 'tool_search' ? entry['execution'] !== 'client' : type !== 'web_search' || entry['external_web_access'] !== false) return false;
  }
  return true;
}

/**
 * Content the provider fetches itself from a URL the request names: an Anthropic image or document
 * whose source is `url`, an OpenAI input image or file given by an http(s) URL (a `data:` URL is
 * inline). Like hosted fetch, it reaches any host with whatever the URL carries. A tool call's
 * `input` is the model's own arguments, not content, and is not read.
 */
function namesFetchedUrl(api: GatewayApi, request: Json): boolean {
  const pending: unknown[] = [api === 'anthropic-messages' ? [request['system'], request['messages']] : request['input']];
  while (pending.length > 0) {
    const next = pending.pop();
    if (Array.isArray(next)) {
      pending.push(...(next as unknown[]));
      continue;
    }
    if (typeof next !== 'object' || next === null) continue;
    const entry = next as Json;
    if (api === 'anthropic-messages') {
      const source = entry['source'];
      if (typeof source === 'object' && source !== null && (source as Json)['type'] === 'url') return true;
    } else if (entry['file_url'] !== undefined || (entry['type'] === 'input_image' && entry['image_url'] !== undefined && !/^data:/i.test(String(entry['image_url'])))) {
      return true;
    }
    for (const [key, value] of Object.entries(entry)) if (!(key === 'input' && api === 'anthropic-messages')) pending.push(value);
  }
  return false;
}

/**
 * Whether some object in JSON `text` (already parsed: it is valid) names a key twice. JSON.parse
 * keeps the last; a provider's parser may keep the first and read a tool or model the rules never saw.
 */
export function hasDuplicateKey(text: string): boolean {
  const objects: (Set<string> | null)[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 0x7b) objects.push(new Set());
    else if (code === 0x5b) objects.push(null);
    else if (code === 0x7d || code === 0x5d) objects.pop();
    else if (code === 0x22) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      let after = end + 1;
      while (/\s/.test(text.charAt(after))) after += 1;
      const keys = objects.at(-1);
      if (text.charCodeAt(after) === 0x3a && keys !== null && keys !== undefined) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (keys.has(key)) return true;
        keys.add(key);
      }
      i = end;
    }
  }
  return false;
}
