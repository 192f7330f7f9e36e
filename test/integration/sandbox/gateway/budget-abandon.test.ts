import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { GatewayRule } from '../../../../shared/sandbox/containment-policy';
import { call, eventually, openAiStream, PLACEHOLDER, scriptedUpstream, startTestGateway, useGatewayCleanup } from './harness';

useGatewayCleanup();

const rule = (upstream: string): GatewayRule => ({ kind: 'gateway', api: 'openai-responses', inside: { kind: 'http', port: 18080 }, upstream, routes: [{ method: 'POST', path: '/v1/responses' }], models: ['m'] });
const headers = { authorization: `Bearer ${PLACEHOLDER}`, 'content-type': 'application/json' };
const body = JSON.stringify({ model: 'm', input: 'hi', stream: true });

// An attacker's read (issue 28): OpenAI reports usage only in its completion event (Anthropic its output in message_delta),
// so a client that leaves just before it spent tokens the budget never counted, as often as it liked.
describe('the token budget, against a client that leaves before the usage', () => {
  it('still counts an answer the client abandoned, and refuses the next request', async () => {
    const [created, ...rest] = openAiStream('m', 5000, 5000).split(/(?<=\n\n)/);
    const upstream = await scriptedUpstream((_seen, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(created);
      setTimeout(() => response.end(rest.join('')), 200);
    });
    const gateway = await startTestGateway(rule(upstream.origin), { budgetTokens: 1000 });
    await new Promise<void>((resolve, reject) => {
      const sent = request({ socketPath: gateway.socketPath, method: 'POST', path: '/v1/responses', headers, agent: false }, (answer) => {
        answer.once('data', () => {
          sent.destroy();
          resolve();
        });
      });
      sent.on('error', () => undefined);
      sent.end(body);
      setTimeout(() => reject(new Error('no first event')), 5000);
    });
    await eventually(() => gateway.exchanges.length === 1);
    expect(gateway.exchanges[0]).toMatchObject({ outcome: 'aborted', input_tokens: 5000, output_tokens: 5000 });
    const next = await call(gateway, { path: '/v1/responses', headers, body });
    expect(next.status).toBe(403);
    expect(next.body).toContain('budget_exceeded');
    expect(upstream.seen).toHaveLength(1);
  });

  it('still counts an answer whose client left before its head arrived', async () => {
    const upstream = await scriptedUpstream((_seen, response) => {
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(openAiStream('m', 5000, 5000));
      }, 200);
    });
    const gateway = await startTestGateway(rule(upstream.origin), { budgetTokens: 1000 });
    const sent = request({ socketPath: gateway.socketPath, method: 'POST', path: '/v1/responses', headers, agent: false });
    sent.on('error', () => undefined);
    sent.end(body);
    await eventually(() => upstream.seen.length === 1);
    sent.destroy();
    await eventually(() => gateway.exchanges.length === 1);
    expect(gateway.exchanges[0]).toMatchObject({ outcome: 'aborted', input_tokens: 5000, output_tokens: 5000 });
    expect((await call(gateway, { path: '/v1/responses', headers, body })).body).toContain('budget_exceeded');
  });
});
