import { describe, expect, it } from 'vitest';
import type { GatewayApi } from '../../../../shared/sandbox/containment-policy';
import { createAnswerWitness } from '../../../../main/sandbox/gateway/answer-witness';
import { chatStream, geminiStream } from '../../../integration/sandbox/gateway/harness';

function witness(api: GatewayApi, pieces: readonly Buffer[], contentType = 'text/event-stream', ended = true) {
  const w = createAnswerWitness(api, contentType);
  for (const piece of pieces) w.push(piece);
  return w.finish(ended);
}

/** Every two-piece cut of `bytes`, and the whole stream one byte at a time. */
function everyCut(bytes: Buffer): Buffer[][] {
  const cuts: Buffer[][] = [];
  for (let cut = 0; cut <= bytes.length; cut += 1) cuts.push([bytes.subarray(0, cut), bytes.subarray(cut)]);
  cuts.push([...bytes].map((byte) => Buffer.from([byte])));
  return cuts;
}

describe('the answer witness, Gemini API', () => {
  it('reads the served model and the last (cumulative) usage at every cut, thoughts counted as output', () => {
    const bytes = Buffer.from(geminiStream('gemini-2.5-flash-001', { prompt: 321, candidates: 54, thoughts: 20, cached: 100 }));
    // promptTokenCount already holds the 100 cached tokens; the 20 thinking tokens are billed as output.
    for (const pieces of everyCut(bytes)) expect(witness('gemini-generate-content', pieces)).toEqual({ servedModel: 'gemini-2.5-flash-001', inputTokens: 321, outputTokens: 74, completed: true });
  });

  it('is no completion without a finishReason, or when the answer broke off; a prompt Google blocked completes', () => {
    const stream = geminiStream('gemini-2.5-flash');
    const first = stream.slice(0, stream.indexOf('\r\n\r\n') + 4);
    expect(witness('gemini-generate-content', [Buffer.from(first)])).toEqual({ servedModel: 'gemini-2.5-flash', inputTokens: 321, outputTokens: 21, completed: false });
    expect(witness('gemini-generate-content', [Buffer.from(stream)], undefined, false).completed).toBe(false);
    const blocked = `data: ${JSON.stringify({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 }, modelVersion: 'gemini-2.5-flash' })}\r\n\r\n`;
    expect(witness('gemini-generate-content', [Buffer.from(blocked)])).toEqual({ servedModel: 'gemini-2.5-flash', inputTokens: 12, outputTokens: 0, completed: true });
  });

  it('reads a whole generateContent answer; a stream without usage leaves the tokens unknown, never invented', () => {
    const whole = Buffer.from(JSON.stringify({ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 2, toolUsePromptTokenCount: 3 }, modelVersion: 'gemini-2.5-pro' }));
    expect(witness('gemini-generate-content', [whole], 'application/json; charset=UTF-8')).toEqual({ servedModel: 'gemini-2.5-pro', inputTokens: 12, outputTokens: 2, completed: true });
    const bare = `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: 'STOP' }], modelVersion: 'gemini-2.5-pro' })}\r\n\r\n`;
    expect(witness('gemini-generate-content', [Buffer.from(bare)])).toEqual({ servedModel: 'gemini-2.5-pro', inputTokens: null, outputTokens: null, completed: true });
    const odd = `data: ${JSON.stringify({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { promptTokenCount: -1, candidatesTokenCount: 1.5 }, modelVersion: 'evil\u001b[2J' })}\r\n\r\n`;
    expect(witness('gemini-generate-content', [Buffer.from(odd)])).toEqual({ servedModel: null, inputTokens: null, outputTokens: null, completed: true });
  });
});

describe('the answer witness, OpenAI Chat Completions', () => {
  it('reads the served model and the usage chunk at every cut, completed by [DONE]', () => {
    const bytes = Buffer.from(chatStream('fake-coder-1-served', { prompt: 321, completion: 54 }));
    for (const pieces of everyCut(bytes)) expect(witness('openai-chat-completions', pieces)).toEqual({ servedModel: 'fake-coder-1-served', inputTokens: 321, outputTokens: 54, completed: true });
  });

  it('completes on a finish_reason followed by the usage chunk even without [DONE]; not on a finish_reason alone', () => {
    const stream = chatStream('m', { prompt: 7, completion: 3 });
    const withoutDone = stream.slice(0, stream.indexOf('data: [DONE]'));
    expect(witness('openai-chat-completions', [Buffer.from(withoutDone)])).toEqual({ servedModel: 'm', inputTokens: 7, outputTokens: 3, completed: true });
    const bare = chatStream('m', null);
    expect(witness('openai-chat-completions', [Buffer.from(bare.slice(0, bare.indexOf('data: [DONE]')))])).toEqual({ servedModel: 'm', inputTokens: null, outputTokens: null, completed: false });
    // A stream that asked for no usage completes with its tokens unknown.
    expect(witness('openai-chat-completions', [Buffer.from(bare)])).toEqual({ servedModel: 'm', inputTokens: null, outputTokens: null, completed: true });
    expect(witness('openai-chat-completions', [Buffer.from(stream)], undefined, false).completed).toBe(false);
  });

  it('reads a whole chat.completion answer', () => {
    const whole = Buffer.from(JSON.stringify({ id: 'c', object: 'chat.completion', model: 'qwen3-coder:30b', choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' }], usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 } }));
    expect(witness('openai-chat-completions', [whole.subarray(0, 9), whole.subarray(9)], 'application/json')).toEqual({ servedModel: 'qwen3-coder:30b', inputTokens: 11, outputTokens: 4, completed: true });
  });
});
