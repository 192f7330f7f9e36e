import type { WireRefusal } from '../../../../shared/runtime/wire';
import { anyObject, anyQuery, asObject, count, openAiErrorBody, parseObject, pathIsRoute, recordedModel, type AnswerSeen, type GatewayDialect, type Json } from './dialect';

/** Chat tools the client runs itself: functions, and OpenAI's custom (freeform) tools. */
const CLIENT_TOOL_TYPES = new Set(['function', 'custom']);

/**
 * Members with which an OpenAI-compatible provider acts beyond answering: OpenAI's web search
 * (`web_search_options`), OpenRouter's plugins (web search), xAI's live search (`search_parameters`),
 * Alibaba DashScope's `enable_search`/`search_options` (Qwen models) and Azure's "on your data"
 * retrieval (`data_sources`). Servers ignore members they do not know, so naming them costs nothing.
 */
const PROVIDER_ACTIONS = ['web_search_options', 'plugins', 'search_parameters', 'enable_search', 'search_options', 'data_sources'];

/**
 * A content part the provider fetches from elsewhere: an image given by an http(s) URL (a `data:` URL
 * is inline), or a file named by id (one of the operator's uploads, not of this request).
 */
function fetchedPart(entry: Json): boolean {
  if (entry['type'] === 'image_url') {
    const image = entry['image_url'];
    const url = typeof image === 'string' ? image : asObject(image)?.['url'];
    return !/^data:/i.test(String(url));
  }
  return entry['type'] === 'file' && asObject(entry['file'])?.['file_id'] !== undefined;
}

/**
 * OpenAI Chat Completions as OpenAI, Ollama, LM Studio and other compatible servers take it (OpenCode,
 * Copilot BYOK, Qwen Code): `POST /v1/chat/completions`, the model in the body. A stream reports usage
 * only when asked (`stream_options.include_usage`), in a last chunk without choices: with a token
 * budget, a stream that does not ask is refused (`usage_not_requested`), else it could spend unseen.
 * The answer: `chat.completion.chunk` events naming the model, completed by `data: [DONE]` (or a
 * finish_reason and then the usage chunk); or a whole `chat.completion` with its usage.
 * `prompt_tokens` already counts cached tokens and `completion_tokens` reasoning tokens.
 */
export const openAiChatCompletions: GatewayDialect = {
  routePath: pathIsRoute,
  judgeQuery: anyQuery,
  judgeBody: (request, context) => {
    const refuse = (refusal: WireRefusal | null) => ({ refusal, model: request['model'] });
    const tools = request['tools'];
    if (tools !== undefined && !Array.isArray(tools)) return refuse('body_unparsable');
    const stream = request['stream'];
    if (stream !== undefined && typeof stream !== 'boolean') return refuse('body_unparsable');
    if (!((tools ?? []) as unknown[]).every((tool) => CLIENT_TOOL_TYPES.has(String(asObject(tool)?.['type'])))) return refuse('server_tool_refused');
    if (PROVIDER_ACTIONS.some((member) => request[member] !== undefined)) return refuse('server_tool_refused');
    if (anyObject([request['messages']], fetchedPart, (key) => key === 'tool_calls')) return refuse('server_tool_refused');
    if (context.budgeted && stream === true && asObject(request['stream_options'])?.['include_usage'] !== true) return refuse('usage_not_requested');
    return refuse(null);
  },
  newAnswerReading: () => {
    const seen = { model: null as string | null, input: null as number | null, output: null as number | null, completed: false };
    let finished = false;
    let usageSeen = false;
    const take = (chunk: Json): void => {
      seen.model = recordedModel(chunk['model']) ?? seen.model;
      const usage = asObject(chunk['usage']);
      if (usage !== null) {
        const input = count(usage['prompt_tokens']);
        const output = count(usage['completion_tokens']);
        if (input !== null && output !== null) {
          seen.input = input;
          seen.output = output;
          usageSeen = true;
        }
      }
      const choices = Array.isArray(chunk['choices']) ? (chunk['choices'] as unknown[]) : [];
      if (choices.some((choice) => typeof asObject(choice)?.['finish_reason'] === 'string')) finished = true;
    };
    return {
      event: (data) => {
        if (data === '[DONE]') {
          seen.completed = true;
          return;
        }
        const chunk = parseObject(data);
        if (chunk === null) return;
        take(chunk);
        if (finished && usageSeen) seen.completed = true;
      },
      whole: (body) => {
        if (body['object'] === 'chat.completion') take(body);
      },
      seen: (): AnswerSeen => ({ ...seen }),
    };
  },
  errorBody: openAiErrorBody,
};
