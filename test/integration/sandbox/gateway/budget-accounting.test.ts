import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BUDGETED_IN_FLIGHT } from '../../../../main/sandbox/gateway/gateway-handler';
import { wireFactsOf } from '../../../../shared/runtime/wire-facts';
import type { GatewayRule } from '../../../../shared/sandbox/containment-policy';
import { call, chatStream, eventually, PLACEHOLDER, scriptedUpstream, startTestGateway, useGatewayCleanup } from './harness';

useGatewayCleanup();

// Review 31 (findings 3, 4, 5): an attacker's ways to spend past the token budget, or to leave the wire's sums looking whole.
const chat = (upstream: string): GatewayRule => ({ kind: 'gateway', api: 'openai-chat-completions', inside: { kind: 'http', port: 3129 }, upstream, routes: [{ method: 'POST', path: '/v1/chat/completions' }], models: ['fake-coder-1'] });
const gemini = (upstream: string): GatewayRule => ({ kind: 'gateway', api: 'gemini-generate-content', inside: { kind: 'http', port: 3129 }, upstream, routes: [{ method: 'POST', path: '/v1beta/models/{model}:streamGenerateContent' }], models: ['gemini-2.5-flash'] });
const headers = { authorization: `Bearer ${PLACEHOLDER}`, 'content-type': 'application/json' };
const chatBody = JSON.stringify({ model: 'fake-coder-1', messages: [{ role: 'user', content: 'hi' }] });
const completion = JSON.stringify({ object: 'chat.completion', model: 'fake-coder-1', choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
const credential = { headers: () => Promise.resolve({ authorization: 'Bearer sk-REAL' }) };

/** A provider that answers `completion` after `delayMs`, counting how many requests it holds at once. */
async function slowProvider(delayMs: number) {
  const load = { now: 0, most: 0 };
  const upstream = await scriptedUpstream(async (_seen, response) => {
    load.now += 1;
    load.most = Math.max(load.most, load.now);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    load.now -= 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(completion);
  });
  return { upstream, load };
}

describe('the token budget against parallel requests', () => {
  it('forwards only the few requests in flight; the queued ones meet the spent budget and are refused', async () => {
    const { upstream, load } = await slowProvider(300);
    const gateway = await startTestGateway(chat(upstream.origin), { budgetTokens: 2000, credential });
    const answers = await Promise.all(Array.from({ length: 50 }, () => call(gateway, { path: '/v1/chat/completions', headers, body: chatBody })));
    expect(upstream.seen).toHaveLength(BUDGETED_IN_FLIGHT);
    expect(load.most).toBe(BUDGETED_IN_FLIGHT);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(BUDGETED_IN_FLIGHT);
    expect(answers.filter((answer) => answer.status === 403 && answer.body.includes('budget_exceeded'))).toHaveLength(50 - BUDGETED_IN_FLIGHT);
    expect(wireFactsOf(gateway.exchanges)).toMatchObject({ requests: 50, completed: BUDGETED_IN_FLIGHT, refused: 50 - BUDGETED_IN_FLIGHT, budget_exceeded: true, usage_complete: true });
    expect(gateway.calls.budgetExceeded).toBe(1);
  });

  it('serves every queued request in turn while the budget holds', async () => {
    const { upstream, load } = await slowProvider(100);
    const gateway = await startTestGateway(chat(upstream.origin), { budgetTokens: 1_000_000, credential });
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(gateway, { path: '/v1/chat/completions', headers, body: chatBody })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(upstream.seen).toHaveLength(6);
    expect(load.most).toBe(BUDGETED_IN_FLIGHT);
  });

  it('never forwards a queued request whose client left', async () => {
    const { upstream } = await slowProvider(400);
    const gateway = await startTestGateway(chat(upstream.origin), { budgetTokens: 1_000_000, credential });
    const held = Array.from({ length: BUDGETED_IN_FLIGHT }, () => call(gateway, { path: '/v1/chat/completions', headers, body: chatBody }));
    await eventually(() => upstream.seen.length === BUDGETED_IN_FLIGHT);
    const left = request({ socketPath: gateway.socketPath, method: 'POST', path: '/v1/chat/completions', headers, agent: false });
    left.on('error', () => undefined);
    left.end(chatBody);
    await new Promise((resolve) => setTimeout(resolve, 100));
    left.destroy();
    await Promise.all(held);
    await eventually(() => gateway.exchanges.length === BUDGETED_IN_FLIGHT + 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(upstream.seen).toHaveLength(BUDGETED_IN_FLIGHT);
    expect(gateway.exchanges.filter((exchange) => exchange.outcome === 'aborted')).toMatchObject([{ status: null, input_tokens: null }]);
  });
});

describe('answers that end without their usage', () => {
  it('counts a Gemini stream whose last event was skipped as oversized as unmetered: the budget trips', async () => {
    const first = { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] } }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1 }, modelVersion: 'gemini-2.5-flash' };
    const big = { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'write_file', args: { content: '\\u003c'.repeat(200_000) } } }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 60000 }, modelVersion: 'gemini-2.5-flash' };
    const upstream = await scriptedUpstream((_seen, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`data: ${JSON.stringify(first)}\r\n\r\ndata: ${JSON.stringify(big)}\r\n\r\n`);
    });
    const gateway = await startTestGateway(gemini(upstream.origin), { budgetTokens: 1000, credential: { headers: () => Promise.resolve({ 'x-goog-api-key': 'AIzaREAL' }) } });
    const asked = { path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', headers: { 'x-goog-api-key': PLACEHOLDER, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) };
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await call(gateway, asked));
    expect(upstream.seen).toHaveLength(1);
    expect(answers.slice(1).every((answer) => answer.status === 403 && answer.body.includes('budget_exceeded'))).toBe(true);
    expect(gateway.exchanges[0]).toMatchObject({ status: 200, input_tokens: null, output_tokens: null });
    expect(wireFactsOf(gateway.exchanges)).toMatchObject({ budget_exceeded: true, usage_complete: false });
  });

  it('without a budget, says the sums are a lower bound when a client leaves a 2xx stream before its usage', async () => {
    const upstream = await scriptedUpstream(async (_seen, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const stream = chatStream('fake-coder-1', { prompt: 50000, completion: 4000 });
      response.write(stream.slice(0, 50));
      await new Promise((resolve) => setTimeout(resolve, 300));
      response.end(stream.slice(50));
    });
    const gateway = await startTestGateway(chat(upstream.origin), { budgetTokens: null, credential });
    const body = JSON.stringify({ model: 'fake-coder-1', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] });
    await new Promise<void>((resolve) => {
      const sent = request({ socketPath: gateway.socketPath, method: 'POST', path: '/v1/chat/completions', headers }, (answer) =>
        answer.once('data', () => {
          sent.destroy();
          resolve();
        }),
      );
      sent.on('error', () => undefined);
      sent.end(body);
    });
    await eventually(() => gateway.exchanges.length === 1);
    expect(gateway.exchanges[0]).toMatchObject({ outcome: 'aborted', status: 200, input_tokens: null });
    expect(wireFactsOf(gateway.exchanges)).toMatchObject({ input_tokens: 0, usage_complete: false });
  });
});
