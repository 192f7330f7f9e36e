import type { WireRefusal } from '../../../../shared/runtime/wire';
import { anyObject, anyQuery, asObject, count, openAiErrorBody, parseObject, pathIsRoute, recordedModel, type AnswerSeen, type GatewayDialect, type Json } from './dialect';

/**
 * OpenAI Responses tools the client runs itself: functions and custom (freeform) tools, the local
 * shell and apply_patch tools; a `namespace` groups tools and passes when all of its tools do.
 * Hosted tools (mcp, file_search, code_interpreter, image_generation, computer_use*, web_search*)
 * are refused, except two Codex 0.169.0 sends on every request for catalogued models (recording
 * codex-cloud/a10): `web_search` with `external_web_access: false`, which searches OpenAI's cached
 * index and fetches no live URL, and `tool_search` with `execution: client`, which Codex runs itself.
 */
const OPENAI_CLIENT_TOOL = new Set(['function', 'custom', 'local_shell', 'shell', 'apply_patch']);

/** Walked without recursion: namespaces nested without end must be refused, not overflow the stack. */
function isClientTool(tool: unknown): boolean {
  const pending: unknown[] = [tool];
  while (pending.length > 0) {
    const entry = asObject(pending.pop());
    if (entry === null) return false;
    const type = entry['type'];
    if (typeof type !== 'string') return false;
    if (OPENAI_CLIENT_TOOL.has(type)) continue;
    if (type === 'namespace' && Array.isArray(entry['tools'])) pending.push(...(entry['tools'] as unknown[]));
    else if (type === 'tool_search' ? entry['execution'] !== 'client' : type !== 'web_search' || entry['external_web_access'] !== false) return false;
  }
  return true;
}

/**
 * The OpenAI Responses API (Codex, on OpenAI or a local provider): the model in the body; refused are
 * hosted tools, a response run in the background (it would go on after the gateway stopped
 * witnessing, unbudgeted), and an input image or file given by an http(s) URL the provider would
 * fetch (a `data:` URL is inline). Every response.* lifecycle event carries the response object;
 * response.completed has the usage (`input_tokens` already counts cached tokens).
 */
export const openAiResponses: GatewayDialect = {
  routePath: pathIsRoute,
  judgeQuery: anyQuery,
  judgeBody: (request) => {
    const refuse = (refusal: WireRefusal | null) => ({ refusal, model: request['model'] });
    const tools = request['tools'];
    if (tools !== undefined && !Array.isArray(tools)) return refuse('body_unparsable');
    if (!((tools ?? []) as unknown[]).every(isClientTool)) return refuse('server_tool_refused');
    if (request['background'] !== undefined && request['background'] !== false) return refuse('server_tool_refused');
    const fetchesUrl = anyObject([request['input']], (entry) => entry['file_url'] !== undefined || (entry['type'] === 'input_image' && entry['image_url'] !== undefined && !/^data:/i.test(String(entry['image_url']))));
    return refuse(fetchesUrl ? 'server_tool_refused' : null);
  },
  newAnswerReading: () => {
    const seen = { model: null as string | null, input: null as number | null, output: null as number | null, completed: false };
    const takeResponse = (response: Json | null): void => {
      if (response === null) return;
      seen.model = recordedModel(response['model']) ?? seen.model;
      const usage = asObject(response['usage']);
      if (usage === null) return;
      seen.input = count(usage['input_tokens']) ?? seen.input;
      seen.output = count(usage['output_tokens']) ?? seen.output;
    };
    return {
      event: (data) => {
        const event = parseObject(data);
        const type = event?.['type'];
        if (type === 'response.created' || type === 'response.in_progress' || type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
          takeResponse(asObject(event?.['response']));
        }
        if (type === 'response.completed') seen.completed = true;
      },
      whole: (body) => {
        if (body['object'] === 'response') takeResponse(body);
      },
      seen: (): AnswerSeen => ({ ...seen }),
    };
  },
  errorBody: openAiErrorBody,
};
