import type { WireRefusal } from '../../../../shared/runtime/wire';
import { anyObject, asObject, count, openAiErrorBody, parseObject, pathIsRoute, recordedModel, type AnswerSeen, type GatewayDialect, type Json } from './dialect';

/** Chat tools the client runs itself: functions, and OpenAI's custom (freeform) tools. */
const CLIENT_TOOL_TYPES = new Set(['function', 'custom']);

/**
 * Members with which an OpenAI-compatible provider acts beyond answering: OpenAI's web search
 * (`web_search_options`), OpenRouter's plugins (web search), xAI's live search (`search_parameters`),
 * Alibaba DashScope's `enable_search`/`search_options` (Qwen models) and Azure's "on your data"
 * retrieval (`data_sources`). Servers ignore members they do not know, so naming them costs nothing.
 */
const PROVIDER_ACTIONS = ['web_search_options', 'plugins', 'search_parameters', 'enable_search', 'search_options', 'data_sources'];

const inline = (url: unknown): boolean => typeof url === 'string' && /^data:/i.test(url);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The content parts a message may carry, each only with its data inline: text, an image as a `data:`
 * URL, audio as base64, a file as a `data:` URL. Any other part is refused, for providers fetch what
 * a part names: an image, video or audio given by URL (`image_url`, `video_url`, Qwen's `video`
 * list, a URL as `input_audio.data`), a file by URL or by id (one of the operator's uploads), and
 * whatever part type a server adds later.
 */
function inlinePart(part: unknown): boolean {
  const entry = asObject(part);
  switch (entry?.['type']) {
    case 'text':
      return typeof entry['text'] === 'string';
    case 'image_url': {
      const image = entry['image_url'];
      return inline(typeof image === 'string' ? image : asObject(image)?.['url']);
    }
    case 'input_audio': {
      const data = asObject(entry['input_audio'])?.['data'];
      return typeof data === 'string' && BASE64.test(data);
    }
    case 'file': {
      const file = asObject(entry['file']);
      return file !== null && file['file_id'] === undefined && inline(file['file_data']);
    }
    default:
      return false;
  }
}

/** Part types with which a provider fetches; found anywhere in the messages, outside a content list too, each must be inline. */
const PART_TYPES = new Set(['image_url', 'input_audio', 'file', 'video_url', 'video', 'image', 'audio', 'input_image', 'input_file', 'input_video']);

/**
 * A part the provider would fetch: a `content` list with anything but inline parts, or a part type
 * it acts on, anywhere below the messages (a list of parts nested in a tool result, say), not inline.
 */
function fetchedPart(entry: Json): boolean {
  const content = entry['content'];
  if (Array.isArray(content) && !content.every(inlinePart)) return true;
  return PART_TYPES.has(String(entry['type'])) && !inlinePart(entry);
}

/**
 * OpenAI Chat Completions as OpenAI, Ollama, LM Studio and other compatible servers take it (OpenCode,
 * Copilot BYOK, Qwen Code): `POST /v1/chat/completions`, the model in the body, no query (none of
 * them sends one; a `key`, `fields` or `alt` one would be read by some servers). A stream reports usage
 * only when asked (`stream_options.include_usage`), in a last chunk without choices: with a token
 * budget, a stream that does not ask is refused (`usage_not_requested`), else it could spend unseen.
 * The answer: `chat.completion.chunk` events naming the model, completed by `data: [DONE]` (or a
 * finish_reason and then the usage chunk); or a whole `chat.completion` with its usage.
 * `prompt_tokens` already counts cached tokens and `completion_tokens` reasoning tokens.
 */
export const openAiChatCompletions: GatewayDialect = {
  routePath: pathIsRoute,
  judgeQuery: (_path, query) => (query === '' ? null : 'query_not_allowed'),
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
