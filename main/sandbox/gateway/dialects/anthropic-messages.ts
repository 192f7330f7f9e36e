import type { WireRefusal } from '../../../../shared/runtime/wire';
import { anyObject, anyQuery, asObject, count, parseObject, pathIsRoute, recordedModel, type AnswerSeen, type GatewayDialect, type Json } from './dialect';

/**
 * Anthropic tools the client runs itself (the CLI executes them in the sandbox): a tool without a
 * type or of type `custom` is the caller's own; bash, text editor, computer use and memory are
 * schemas Anthropic defines for the client to execute. Every other typed tool runs on Anthropic's
 * side (web search, web fetch, code execution, tool search, MCP toolsets, and any added later) and
 * could reach a URL the prompt names, so only these pass.
 */
const ANTHROPIC_CLIENT_TOOL = /^(?:custom|bash_\d{8}|text_editor_\d{8}|computer_\d{8}|memory_\d{8})$/;

function isClientTool(tool: unknown): boolean {
  const entry = asObject(tool);
  if (entry === null) return false;
  const type = entry['type'];
  return type === undefined || (typeof type === 'string' && ANTHROPIC_CLIENT_TOOL.test(type));
}

/**
 * The Anthropic Messages API (Claude Code): the model in the body; refused are the `mcp_servers`
 * connector, server-side tools, and an image or document whose source is a URL the provider would
 * fetch (a tool call's `input` is the model's own arguments, not content, and is not read).
 * The stream's message_start names the model and the input; message_delta carries the final output
 * count; message_stop completes it. Input tokens are all the input the model read: cache writes and
 * reads, which Anthropic reports apart from `input_tokens`, are added.
 */
export const anthropicMessages: GatewayDialect = {
  routePath: pathIsRoute,
  judgeQuery: anyQuery,
  judgeBody: (request) => {
    const refuse = (refusal: WireRefusal | null) => ({ refusal, model: request['model'] });
    const tools = request['tools'];
    if (tools !== undefined && !Array.isArray(tools)) return refuse('body_unparsable');
    if (request['mcp_servers'] !== undefined) return refuse('mcp_servers_refused');
    if (!((tools ?? []) as unknown[]).every(isClientTool)) return refuse('server_tool_refused');
    const fetchesUrl = anyObject(
      [request['system'], request['messages']],
      (entry) => asObject(entry['source'])?.['type'] === 'url',
      (key) => key === 'input',
    );
    return refuse(fetchesUrl ? 'server_tool_refused' : null);
  },
  newAnswerReading: () => {
    const seen = { model: null as string | null, input: null as number | null, output: null as number | null, completed: false };
    const takeUsage = (usage: Json | null): void => {
      if (usage === null) return;
      const input = count(usage['input_tokens']);
      if (input !== null) seen.input = input + (count(usage['cache_creation_input_tokens']) ?? 0) + (count(usage['cache_read_input_tokens']) ?? 0);
      seen.output = count(usage['output_tokens']) ?? seen.output;
    };
    return {
      event: (data) => {
        const event = parseObject(data);
        if (event?.['type'] === 'message_start') {
          const message = asObject(event['message']);
          seen.model = recordedModel(message?.['model']) ?? seen.model;
          takeUsage(asObject(message?.['usage']));
        } else if (event?.['type'] === 'message_delta') {
          takeUsage(asObject(event['usage']));
        } else if (event?.['type'] === 'message_stop') {
          seen.completed = true;
        }
      },
      whole: (body) => {
        if (body['type'] !== 'message') return;
        seen.model = recordedModel(body['model']);
        takeUsage(asObject(body['usage']));
      },
      seen: (): AnswerSeen => ({ ...seen }),
    };
  },
  errorBody: (_status, errorType, _refusal, message) => ({ type: 'error', error: { type: errorType, message } }),
};
