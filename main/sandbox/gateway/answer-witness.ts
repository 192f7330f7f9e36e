import { StringDecoder } from 'node:string_decoder';
import type { GatewayApi } from '../../../shared/sandbox/containment-policy';
import { createSseReader, MAX_SSE_EVENT_CHARS, type SseReader } from './sse-reader';

/** A non-streamed answer is read for its model and usage up to this size; a larger one is passed on unread. */
export const MAX_JSON_ANSWER_BYTES = 4 * 1024 * 1024;

/** What the provider's own answer said about itself. */
export interface AnswerReport {
  readonly servedModel: string | null;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  /** A stream reached its completion event; any other answer was received to its end. */
  readonly completed: boolean;
}

export interface AnswerWitness {
  push(chunk: Buffer): void;
  /** `ended`: the answer arrived to its last byte (a connection that broke before is no completion). */
  finish(ended: boolean): AnswerReport;
}

// Printable ASCII without spaces, bounded: a model name is recorded only when it cannot carry anything else.
const MODEL = /^[\x21-\x7e]{1,128}$/;

/** A model name as recorded: bounded printable text, else null. */
export function recordedModel(value: unknown): string | null {
  return typeof value === 'string' && MODEL.test(value) ? value : null;
}

/**
 * Reads the provider's answer as it passes to the client, never holding more than one bounded SSE
 * event or one bounded JSON body: for a stream (`text/event-stream`) the dialect's start and
 * completion events, for a JSON answer the whole body. Anything else is only timed.
 *
 * Input tokens are all the input the model read: Anthropic reports cache writes and reads apart from
 * `input_tokens`, so they are added (OpenAI's `input_tokens` already counts cached tokens); that
 * keeps one meaning across providers for the receipt and the budget.
 */
export function createAnswerWitness(api: GatewayApi, contentType: string | undefined): AnswerWitness {
  const state: WitnessState = { model: null, input: null, output: null, completedEvent: false };
  const read = api === 'anthropic-messages' ? readAnthropic : readOpenAi;
  const type = (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';

  if (type === 'text/event-stream') {
    const decoder = new StringDecoder('utf8');
    const reader: SseReader = createSseReader((data) => {
      const event = parseObject(data);
      if (event !== null) read(event, state);
    }, MAX_SSE_EVENT_CHARS);
    return {
      push: (chunk) => reader.push(decoder.write(chunk)),
      finish: (ended) => ({ servedModel: state.model, inputTokens: state.input, outputTokens: state.output, completed: ended && state.completedEvent }),
    };
  }
  if (type === 'application/json' || type.endsWith('+json')) {
    const chunks: Buffer[] = [];
    let bytes = 0;
    return {
      push: (chunk) => {
        bytes += chunk.length;
        if (bytes <= MAX_JSON_ANSWER_BYTES) chunks.push(chunk);
      },
      finish: (ended) => {
        const body = ended && bytes <= MAX_JSON_ANSWER_BYTES ? parseObject(Buffer.concat(chunks).toString('utf8')) : null;
        if (body !== null) readWhole(body, state);
        return { servedModel: state.model, inputTokens: state.input, outputTokens: state.output, completed: ended };
      },
    };
  }
  return { push: () => undefined, finish: (ended) => ({ servedModel: null, inputTokens: null, outputTokens: null, completed: ended }) };
}

type WitnessState = { model: string | null; input: number | null; output: number | null; completedEvent: boolean };
type Json = Record<string, unknown>;

/** Anthropic Messages stream: message_start names the model and the input; message_delta carries the final output count. */
function readAnthropic(event: Json, state: WitnessState): void {
  if (event['type'] === 'message_start') {
    const message = asObject(event['message']);
    state.model = recordedModel(message?.['model']) ?? state.model;
    takeAnthropicUsage(asObject(message?.['usage']), state);
  } else if (event['type'] === 'message_delta') {
    takeAnthropicUsage(asObject(event['usage']), state);
  } else if (event['type'] === 'message_stop') {
    state.completedEvent = true;
  }
}

/** OpenAI Responses stream: every response.* lifecycle event carries the response object; completion has the usage. */
function readOpenAi(event: Json, state: WitnessState): void {
  const type = event['type'];
  if (type === 'response.created' || type === 'response.in_progress' || type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
    takeOpenAiResponse(asObject(event['response']), state);
  }
  if (type === 'response.completed') state.completedEvent = true;
}

/** A whole (non-streamed) answer: an Anthropic message or an OpenAI response object. */
function readWhole(body: Json, state: WitnessState): void {
  if (body['type'] === 'message') {
    state.model = recordedModel(body['model']);
    takeAnthropicUsage(asObject(body['usage']), state);
  } else if (body['object'] === 'response') {
    takeOpenAiResponse(body, state);
  }
}

function takeAnthropicUsage(usage: Json | null, state: WitnessState): void {
  if (usage === null) return;
  const input = count(usage['input_tokens']);
  if (input !== null) state.input = input + (count(usage['cache_creation_input_tokens']) ?? 0) + (count(usage['cache_read_input_tokens']) ?? 0);
  state.output = count(usage['output_tokens']) ?? state.output;
}

function takeOpenAiResponse(response: Json | null, state: WitnessState): void {
  if (response === null) return;
  state.model = recordedModel(response['model']) ?? state.model;
  const usage = asObject(response['usage']);
  if (usage === null) return;
  state.input = count(usage['input_tokens']) ?? state.input;
  state.output = count(usage['output_tokens']) ?? state.output;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

function asObject(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function parseObject(text: string): Json | null {
  try {
    return asObject(JSON.parse(text));
  } catch {
    return null;
  }
}
