import type { WireRefusal } from '../../../../shared/runtime/wire';
import { anyObject, asObject, count, parseObject, recordedModel, type AnswerSeen, type GatewayDialect, type Json } from './dialect';

/**
 * `<prefix>/models/<model>:<method>` (e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent`):
 * the Gemini API names the model in the path. A model segment is a plain name, never an escape or a
 * further path (which Google's front end could decode or resolve to another resource).
 */
const MODEL_PATH = /^(\/[^:]*\/models\/)([^/:]*)(:[A-Za-z]+)$/;
const MODEL_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The model a Gemini path names, or null. */
export function geminiPathModel(path: string): string | null {
  const segment = MODEL_PATH.exec(path)?.[2];
  return segment !== undefined && MODEL_SEGMENT.test(segment) ? segment : null;
}

/**
 * A tool entry the client runs itself: only function declarations (in either of the spellings
 * Google's JSON parser takes). Every other member is a tool Google runs (googleSearch,
 * googleSearchRetrieval, urlContext, codeExecution, computerUse, fileSearch, googleMaps, and any
 * added later), which could reach a URL the prompt names or data beyond the request.
 */
const CLIENT_TOOL_KEYS = new Set(['functionDeclarations', 'function_declarations']);

/**
 * Members that make Google read more than the request: stored content (`cachedContent`, another
 * session's cache) and a model named in the body besides the path (which one Google takes is not
 * the gateway's to guess).
 */
const REFUSED_MEMBERS: Readonly<Record<string, WireRefusal>> = {
  cachedContent: 'server_tool_refused',
  cached_content: 'server_tool_refused',
  model: 'model_not_allowed',
};

/** A function call's arguments are the model's own; a function response's `response` is opaque data to it. Neither is content Google reads as parts. */
const OPAQUE_MEMBERS = new Set(['args', 'response']);

/**
 * The Gemini API (Gemini CLI, `GOOGLE_GEMINI_BASE_URL`): `POST …/models/{model}:streamGenerateContent?alt=sse`
 * and `…:generateContent`, the model in the path; the key in `x-goog-api-key` (checked and swapped
 * like any client credential). The query must be exactly `alt=sse` for a stream and empty otherwise:
 * a `key` would carry a credential past the swap, and `fields`, `$fields` or another `alt` would make
 * the answer hide its model and usage from the witness (or come as protobuf it cannot read).
 * Refused: non-function tools, stored content (`cachedContent`) and any `fileData` part, which has
 * Google fetch a URI (a web page, a YouTube video, a file in the operator's Files API storage).
 */
export const geminiGenerateContent: GatewayDialect = {
  routePath: (path) => {
    const match = MODEL_PATH.exec(path);
    if (match === null) return path;
    return MODEL_SEGMENT.test(match[2] ?? '') ? `${match[1]}{model}${match[3]}` : null;
  },
  judgeQuery: (path, query) => {
    const expected = path.endsWith(':streamGenerateContent') ? 'alt=sse' : '';
    return query === expected ? null : 'query_not_allowed';
  },
  judgeBody: (request, context) => {
    const model = context.path === null ? null : geminiPathModel(context.path);
    const refuse = (refusal: WireRefusal | null) => ({ refusal, model });
    const tools = request['tools'];
    if (tools !== undefined && !Array.isArray(tools)) return refuse('body_unparsable');
    for (const [member, refusal] of Object.entries(REFUSED_MEMBERS)) if (request[member] !== undefined) return refuse(refusal);
    const clientTool = (tool: unknown): boolean => {
      const entry = asObject(tool);
      return entry !== null && Object.keys(entry).every((key) => CLIENT_TOOL_KEYS.has(key));
    };
    if (!((tools ?? []) as unknown[]).every(clientTool)) return refuse('server_tool_refused');
    const fetched = anyObject(
      [request['contents'], request['systemInstruction'], request['system_instruction']],
      (entry) => entry['fileData'] !== undefined || entry['file_data'] !== undefined,
      (key) => OPAQUE_MEMBERS.has(key),
    );
    return refuse(fetched ? 'server_tool_refused' : null);
  },
  newAnswerReading: () => {
    const seen = { model: null as string | null, input: null as number | null, output: null as number | null, completed: false };
    const take = (response: Json): void => {
      seen.model = recordedModel(response['modelVersion']) ?? seen.model;
      const usage = asObject(response['usageMetadata']);
      if (usage !== null) {
        // Cumulative in every chunk: the last one counts. Proto3 JSON leaves zeros out, so an absent count is 0.
        const part = (key: string): number | null => (usage[key] === undefined ? 0 : count(usage[key]));
        const sum = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a + b);
        // promptTokenCount already includes cachedContentTokenCount; thoughts are billed as output tokens.
        seen.input = sum(part('promptTokenCount'), part('toolUsePromptTokenCount'));
        seen.output = sum(part('candidatesTokenCount'), part('thoughtsTokenCount'));
      }
      const candidatesList = Array.isArray(response['candidates']) ? (response['candidates'] as unknown[]) : [];
      // A candidate's finishReason ends the answer; a prompt Google blocked ends it with promptFeedback.blockReason instead.
      if (candidatesList.some((candidate) => asObject(candidate)?.['finishReason'] !== undefined) || asObject(response['promptFeedback'])?.['blockReason'] !== undefined) seen.completed = true;
    };
    return {
      event: (data) => {
        const chunk = parseObject(data);
        if (chunk !== null) take(chunk);
      },
      whole: take,
      seen: (): AnswerSeen => ({ ...seen }),
    };
  },
  errorBody: (status, _errorType, _refusal, message) => ({ error: { code: status, message, status: status === 401 ? 'UNAUTHENTICATED' : status === 403 ? 'PERMISSION_DENIED' : 'INVALID_ARGUMENT' } }),
};
