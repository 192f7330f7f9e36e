import { StringDecoder } from 'node:string_decoder';
import type { GatewayApi } from '../../../shared/sandbox/containment-policy';
import { parseObject } from './dialects/dialect';
import { DIALECTS } from './dialects/dialects';
import { createSseReader, MAX_SSE_EVENT_CHARS, type SseReader } from './sse-reader';

/** A non-streamed answer is read for its model and usage up to this size; a larger one is passed on unread. */
export const MAX_JSON_ANSWER_BYTES = 4 * 1024 * 1024;

/** What the provider's own answer said about itself. */
export interface AnswerReport {
  readonly servedModel: string | null;
  /** Null when the answer gave none, or when a stream's event was skipped (the usage seen may not be its last). */
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

export { recordedModel } from './dialects/dialect';

/**
 * Reads the provider's answer as it passes to the client, never holding more than one bounded SSE
 * event or one bounded JSON body: for a stream (`text/event-stream`) each event, as the dialect
 * reads it (dialects/), for a JSON answer the whole body. Anything else is only timed.
 *
 * Tokens keep one meaning across providers for the receipt and the budget: input is all the input
 * the model read (cached included), output all it was billed for producing (reasoning included).
 */
export function createAnswerWitness(api: GatewayApi, contentType: string | undefined): AnswerWitness {
  const reading = DIALECTS[api].newAnswerReading();
  // A stream completes with its completion event; any other answer once received to its end.
  const report = (ended: boolean, stream: boolean, skipped = false): AnswerReport => {
    const seen = reading.seen();
    const usage = skipped ? { input: null, output: null } : seen;
    return { servedModel: seen.model, inputTokens: usage.input, outputTokens: usage.output, completed: ended && (!stream || seen.completed) };
  };
  const type = (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';

  if (type === 'text/event-stream') {
    const decoder = new StringDecoder('utf8');
    const reader: SseReader = createSseReader((data) => reading.event(data), MAX_SSE_EVENT_CHARS);
    return {
      push: (chunk) => reader.push(decoder.write(chunk)),
      finish: (ended) => report(ended, true, reader.skipped()),
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
        if (body !== null) reading.whole(body);
        return report(ended, false);
      },
    };
  }
  return { push: () => undefined, finish: (ended) => ({ servedModel: null, inputTokens: null, outputTokens: null, completed: ended }) };
}
