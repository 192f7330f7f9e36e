import { describe, expect, it } from 'vitest';
import { createAnswerWitness, MAX_JSON_ANSWER_BYTES, recordedModel } from '../../../../main/sandbox/gateway/answer-witness';
import { createSseReader } from '../../../../main/sandbox/gateway/sse-reader';

const sse = (events: readonly object[], eol = '\n'): string => events.map((event) => `event: ${(event as { type: string }).type}${eol}data: ${JSON.stringify(event)}${eol}${eol}`).join('');

// What the shared recordings' scripted servers streamed, with a served model differing from the requested one.
const ANTHROPIC_STREAM = sse([
  { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], usage: { input_tokens: 123, cache_creation_input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'FAKE-REPLY: héllo ✓' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 45 } },
  { type: 'message_stop' },
]);
const OPENAI_STREAM = sse([
  { type: 'response.created', response: { id: 'resp_1', object: 'response', model: 'qwen3-coder:30b', usage: null } },
  { type: 'response.output_text.delta', delta: 'FAKE-REPLY ✓' },
  { type: 'response.completed', response: { id: 'resp_1', object: 'response', model: 'qwen3-coder:30b', usage: { input_tokens: 321, output_tokens: 54, total_tokens: 375 } } },
]);

function witness(api: 'anthropic-messages' | 'openai-responses', pieces: readonly Buffer[], contentType = 'text/event-stream; charset=utf-8', ended = true) {
  const w = createAnswerWitness(api, contentType);
  for (const piece of pieces) w.push(piece);
  return w.finish(ended);
}

describe('the answer witness', () => {
  it('reads an Anthropic stream split at every byte position (cache tokens count as input)', () => {
    const bytes = Buffer.from(ANTHROPIC_STREAM);
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      expect(witness('anthropic-messages', [bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual({ servedModel: 'claude-sonnet-4-5-20250929', inputTokens: 138, outputTokens: 45, completed: true });
    }
  });

  it('reads an OpenAI Responses stream split at every byte position, and with CRLF and CR line ends', () => {
    const expected = { servedModel: 'qwen3-coder:30b', inputTokens: 321, outputTokens: 54, completed: true };
    for (const eol of ['\n', '\r\n', '\r']) {
      const bytes = Buffer.from(sse([{ type: 'response.created', response: { model: 'qwen3-coder:30b', usage: null } }, { type: 'response.completed', response: { model: 'qwen3-coder:30b', usage: { input_tokens: 321, output_tokens: 54 } } }], eol));
      for (let cut = 0; cut <= bytes.length; cut += 1) expect(witness('openai-responses', [bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(expected);
    }
    expect(witness('openai-responses', [...Buffer.from(OPENAI_STREAM)].map((byte) => Buffer.from([byte])))).toEqual(expected);
  });

  it('is no completion without the completion event, or when the answer broke off', () => {
    const withoutStop = ANTHROPIC_STREAM.slice(0, ANTHROPIC_STREAM.indexOf('event: message_stop'));
    expect(witness('anthropic-messages', [Buffer.from(withoutStop)]).completed).toBe(false);
    expect(witness('anthropic-messages', [Buffer.from(ANTHROPIC_STREAM)], undefined, false).completed).toBe(false);
  });

  it('skips an event larger than the cap whole, holding at most the cap, and reads the events after it', () => {
    const events: string[] = [];
    const reader = createSseReader((data) => events.push(data), 1024);
    reader.push('data: {"type":"small"}\n\n');
    expect(reader.skipped()).toBe(false);
    reader.push('data: ');
    for (let i = 0; i < 1000; i += 1) reader.push('x'.repeat(1000)); // one 1 MB line
    reader.push('\ndata: more\n\n');
    reader.push(`data: ${'y'.repeat(600)}\ndata: ${'y'.repeat(600)}\n\n`); // two lines over the cap together
    reader.push('data: {"type":"after"}\n\n');
    expect(events).toEqual(['{"type":"small"}', '{"type":"after"}']);
    expect(reader.skipped()).toBe(true);
  });

  // Review 31: the skipped event may have carried the usage (Gemini's last chunk with a huge functionCall), so none is reported.
  it('keeps reading the stream past a huge content event (real witness, 1 MiB cap), but reports no usage', () => {
    const huge = `data: ${JSON.stringify({ type: 'content_block_delta', delta: { text: 'z'.repeat(3 * 1024 * 1024) } })}\n\n`;
    const [start, ...rest] = ANTHROPIC_STREAM.split('\n\n');
    const stream = [`${start}\n\n`, huge, rest.join('\n\n')].map((text) => Buffer.from(text));
    expect(witness('anthropic-messages', stream)).toEqual({ servedModel: 'claude-sonnet-4-5-20250929', inputTokens: null, outputTokens: null, completed: true });
  });

  it('reads a whole JSON answer of either API, and gives up on one beyond its cap', () => {
    const anthropic = Buffer.from(JSON.stringify({ type: 'message', model: 'claude-haiku-4-5', usage: { input_tokens: 7, output_tokens: 3 } }));
    expect(witness('anthropic-messages', [anthropic.subarray(0, 5), anthropic.subarray(5)], 'application/json')).toEqual({ servedModel: 'claude-haiku-4-5', inputTokens: 7, outputTokens: 3, completed: true });
    const openai = Buffer.from(JSON.stringify({ object: 'response', model: 'qwen3-coder:30b', usage: { input_tokens: 9, output_tokens: 2 } }));
    expect(witness('openai-responses', [openai], 'application/json')).toEqual({ servedModel: 'qwen3-coder:30b', inputTokens: 9, outputTokens: 2, completed: true });
    const big = Buffer.from(JSON.stringify({ object: 'response', model: 'm', pad: 'p'.repeat(MAX_JSON_ANSWER_BYTES) }));
    expect(witness('openai-responses', [big], 'application/json')).toEqual({ servedModel: null, inputTokens: null, outputTokens: null, completed: true });
  });

  it('records a model only as bounded printable text, and tokens only as non-negative integers', () => {
    expect(recordedModel('qwen3-coder:30b')).toBe('qwen3-coder:30b');
    for (const bad of ['', 'a b', 'x'.repeat(129), 'model\n', 'mödel', 42, null]) expect(recordedModel(bad)).toBeNull();
    const odd = sse([{ type: 'message_start', message: { model: 'evil\u001b[2J', usage: { input_tokens: -1, output_tokens: 1.5 } } }, { type: 'message_stop' }]);
    expect(witness('anthropic-messages', [Buffer.from(odd)])).toEqual({ servedModel: null, inputTokens: null, outputTokens: null, completed: true });
  });
});
